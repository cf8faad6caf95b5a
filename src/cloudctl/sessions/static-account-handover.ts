// Static account names one agent gives up (its hello no longer lists them, or it is retired): a name
// another connected agent lists in its own file becomes that agent's, and the rest have left cloudctl.
// Only this replica's sessions are asked: an agent connected elsewhere claims its accounts again with
// its next hello there.
import type { AgentRegistry, SessionAccount } from './agent-registry.ts';
import type { AccountRegistration, AgentStore } from './agent-store.ts';

export function staticAccounts(accounts: readonly SessionAccount[]): AccountRegistration[] {
  return accounts
    .filter((account) => account.source === 'static-agent-config')
    .map(({ source: _source, ...account }) => account);
}

/** Hands each name to another connected agent that lists it; answers the names nobody lists. */
export async function handOverStaticAccounts(
  names: readonly string[],
  from: string,
  deps: { registry: Pick<AgentRegistry, 'newestSessions'>; agents: AgentStore; now: Date },
): Promise<string[]> {
  const gone: string[] = [];
  for (const name of names) {
    const other = deps.registry
      .newestSessions()
      .filter((s) => s.agentId !== from)
      .flatMap((s) => staticAccounts(s.accounts).map((account) => ({ agentId: s.agentId, account })))
      .find(({ account }) => account.name === name);
    if (other === undefined) gone.push(name);
    else await deps.agents.assign(other.agentId, [other.account], deps.now);
  }
  return gone;
}
