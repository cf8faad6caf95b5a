// Accounts: every account the user may read, its state as the dynamic accounts API reports it with
// the last assignment message, the agents holding it, what its cache holds, and sync progress.
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { accountMessages } from './account-message.ts';
import { ACCOUNT_PAGE, cacheFacts, readableAccounts } from './readable-accounts.ts';
import { lastSyncCell, syncCell } from './sync-cell.ts';
import { badge, emptyState, table } from './table.ts';

export const accountsView = defineView({
  url: '/status/accounts',
  nav: 'Accounts',
  async render(context) {
    const { now } = context;
    const { records, total } = await readableAccounts(context);
    const names = records.map((r) => r.name);
    const [facts, messages] = await Promise.all([
      cacheFacts(context, names),
      accountMessages(context, records),
    ]);
    const counts = new Map<string, number>();
    for (const record of records) counts.set(record.state, (counts.get(record.state) ?? 0) + 1);
    const body =
      records.length === 0
        ? emptyState(
            total === 0 ? 'No accounts you may read.' : 'No accounts on this page.',
            html`Accounts come from agents' config files (<code>orchestrator.accounts</code>) or are defined in cloudctl with <code>POST /credentials</code> and placed with <code>/vendor/accounts</code>.`,
          )
        : html`<p class="summary">${total} accounts${[...counts].map(([state, n]) => html` · ${n} ${badge(state)}`)}${
            total > ACCOUNT_PAGE ? html` · the first ${ACCOUNT_PAGE} shown` : ''
          }</p>
${table(
  ['Account', 'State', 'Message', 'Agents', 'Cached kinds (objects)', 'Last sync', 'Sync'],
  records.map((record) => {
    const kinds = facts.kinds.get(record.name) ?? [];
    const objects = kinds.reduce((sum, k) => sum + k.count, 0);
    return [
      html`<a href="/status/accounts/${encodeURIComponent(record.name)}" data-account="${record.name}">${record.name}</a>
<div class="muted">${record.source === 'cloudctl' ? 'cloudctl' : 'agent config'}</div>`,
      html`<span data-state="${record.state}">${badge(record.state)}</span>`,
      html`<span class="message" data-message>${messages.get(record.name) ?? ''}</span>`,
      record.agents.length === 0
        ? html`<span class="muted">none</span>`
        : html`<ul class="plain">${record.agents.map(
            (a) =>
              html`<li>${a.agentId} <span class="muted">${a.caching ? 'caching' : 'operations only'}</span></li>`,
          )}</ul>`,
      kinds.length === 0
        ? html`<span class="muted">nothing cached</span>`
        : html`<span data-objects="${objects}"><strong>${objects}</strong> objects</span>
<ul class="kinds">${kinds.map((k) => html`<li data-kind="${k.kind}" data-count="${k.count}">${k.kind} ${k.count}</li>`)}</ul>`,
      lastSyncCell(facts.lastSync.get(record.name), now),
      syncCell(facts.progress.get(record.name), now),
    ];
  }),
)}`;
    return { title: 'Accounts', sections: [{ id: 'accounts', title: 'Accounts', body }] };
  },
});
