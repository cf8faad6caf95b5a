// One account: its record (state, message, zone, agents), its cache kind by kind, sync progress, and
// the recent operations on it. Needs READ on the account, as GET /vendor/accounts/{name} does: a
// user without it gets the refusal page.
import { z } from 'zod';
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { accountMessages } from './account-message.ts';
import { operationsTable, RECENT_OPERATIONS } from './operations-table.ts';
import { cacheFacts } from './readable-accounts.ts';
import { lastSyncCell, syncCell } from './sync-cell.ts';
import { badge, emptyState, table } from './table.ts';

export const accountView = defineView({
  url: '/status/accounts/:accountName',
  params: z.object({ accountName: z.string().min(1) }),
  async render(context, params) {
    const { sources, user, now } = context;
    const record = await sources.accounts.get(user, params.accountName);
    const [facts, messages, operations] = await Promise.all([
      cacheFacts(context, [record.name]),
      accountMessages(context, [record]),
      sources.store.operations.recent(RECENT_OPERATIONS, [record.name]),
    ]);
    const kinds = facts.kinds.get(record.name) ?? [];
    const summary = html`<dl class="facts">
<dt>State</dt><dd data-state="${record.state}">${badge(record.state)}</dd>
<dt>Message</dt><dd class="message" data-message>${messages.get(record.name) ?? html`<span class="muted">none</span>`}</dd>
<dt>Defined in</dt><dd>${record.source === 'cloudctl' ? 'cloudctl (POST /credentials)' : "an agent's config file"}</dd>
<dt>Zone</dt><dd>${record.zoneId ?? html`<span class="muted">any</span>`}</dd>
<dt>Agents</dt><dd>${record.agents.length === 0 ? html`<span class="muted">none</span>` : record.agents.map((a) => html`${a.agentId} <span class="muted">(${a.caching ? 'caching' : 'operations only'})</span> `)}</dd>
<dt>Last sync</dt><dd>${lastSyncCell(facts.lastSync.get(record.name), now)}</dd>
<dt>Sync</dt><dd>${syncCell(facts.progress.get(record.name), now)}</dd>
</dl>`;
    const cache =
      kinds.length === 0
        ? emptyState('Nothing cached yet.', 'Kinds appear as the caching agent lists them.')
        : table(
            ['Kind', 'Objects'],
            kinds.map((k) => [
              html`<span data-kind="${k.kind}" data-count="${k.count}">${k.kind}</span>`,
              k.count,
            ]),
          );
    return {
      title: `Account ${record.name}`,
      sections: [
        { id: 'account', title: 'Account', body: summary },
        { id: 'cache', title: 'Cache', body: cache },
        { id: 'operations', title: 'Recent operations', body: operationsTable(operations, now) },
      ],
    };
  },
});
