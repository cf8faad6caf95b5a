// Agents: every agent that ever connected, live ones first, with what it said at hello, when its
// session began and last beat, and the accounts it holds that the user may read (caching them, or
// for operations only). Heartbeats live where the session is: an agent connected to another replica
// shows its recorded times.
import type { SessionView } from '../../sessions/index.ts';
import { timeAgo } from '../format.ts';
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { readableAccounts } from './readable-accounts.ts';
import { badge, emptyState, table } from './table.ts';

/** The newest session of each agent on this replica (an agent's replicas each hold one). */
function liveSessions(sessions: readonly SessionView[]): Map<string, { newest: SessionView; count: number }> {
  const byAgent = new Map<string, { newest: SessionView; count: number }>();
  for (const session of sessions) {
    const seen = byAgent.get(session.agentId);
    if (seen === undefined) byAgent.set(session.agentId, { newest: session, count: 1 });
    else
      byAgent.set(session.agentId, {
        newest: session.connectedAt >= seen.newest.connectedAt ? session : seen.newest,
        count: seen.count + 1,
      });
  }
  return byAgent;
}

export const agentsView = defineView({
  url: '/status/agents',
  nav: 'Agents',
  async render(context) {
    const { sources, now } = context;
    const [known, { records }] = await Promise.all([
      sources.store.agents.agents(),
      readableAccounts(context),
    ]);
    const live = liveSessions(sources.registry.list());
    const held = new Map<string, Array<{ name: string; caching: boolean }>>();
    for (const record of records) {
      for (const agent of record.agents) {
        held.set(agent.agentId, [
          ...(held.get(agent.agentId) ?? []),
          { name: record.name, caching: agent.caching },
        ]);
      }
    }
    const agents = await Promise.all(
      known.map(async (agent) => {
        const session = live.get(agent.id);
        const connected = session !== undefined || (await sources.sessions.isConnected(agent.id));
        return { agent, session, connected };
      }),
    );
    agents.sort((a, b) => Number(b.connected) - Number(a.connected) || (a.agent.id < b.agent.id ? -1 : 1));
    const connected = agents.filter((a) => a.connected).length;
    const body =
      agents.length === 0
        ? emptyState(
            'No agent has connected yet.',
            html`Run <code>orch-agent</code> with <code>cloudctl.grpc</code> set to this cloudctl's gRPC address and a token configured under <code>agents</code>; it appears here once it says hello.`,
          )
        : html`<p class="summary"><strong>${connected}</strong> of ${agents.length} agents connected</p>
${table(
  ['Agent', 'State', 'Zone', 'Version', 'Connected since', 'Last heartbeat', 'Accounts'],
  agents.map(({ agent, session, connected }) => {
    const accounts = held.get(agent.id) ?? [];
    return [
      html`<span data-agent="${agent.id}">${agent.id}</span>`,
      connected
        ? html`${badge('connected')}${(session?.count ?? 1) > 1 ? html` <span class="muted">${session?.count} sessions</span>` : ''}`
        : badge('disconnected'),
      (session?.newest.zoneId ?? agent.zoneId) || html`<span class="muted">none</span>`,
      session?.newest.version ?? agent.version,
      connected
        ? timeAgo(session?.newest.connectedAt ?? agent.connectedAt, now)
        : html`<span class="muted">—</span>`,
      timeAgo(session?.newest.lastHeartbeatAt ?? agent.lastHeartbeatAt, now),
      accounts.length === 0
        ? html`<span class="muted">none you may read</span>`
        : html`<ul class="inline">${accounts.map(
            (a) =>
              html`<li data-account="${a.name}" data-caching="${a.caching}"><a href="/status/accounts/${encodeURIComponent(a.name)}">${a.name}</a> <span class="muted">${a.caching ? 'caching' : 'operations only'}</span></li>`,
          )}</ul>`,
    ];
  }),
)}`;
    return { title: 'Agents', sections: [{ id: 'agents', title: 'Agents', body }] };
  },
});
