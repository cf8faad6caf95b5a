// Retiring an agent gone for good, whoever asks (an administrator's DELETE /agents/{id}, or the idle
// retirement when `agentRetirement.notSeenForSeconds` is set): the agent and its static accounts are
// forgotten in one step, a name another connected agent lists becomes that agent's, and what was
// cached of the rest is evicted. A connected agent is never retired: its next hello would bring its
// accounts straight back, and its session's work would be cut.
import { CodedError } from '../../lib/coded-error.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { AgentStore } from './agent-store.ts';
import type { SessionFinder } from './session-finder.ts';
import { handOverStaticAccounts } from './static-account-handover.ts';

export interface AgentRetirementDeps {
  store: { agents: AgentStore };
  registry: Pick<AgentRegistry, 'newestSessions'>;
  now: () => Date;
  /** Whether the agent has a session on any replica. */
  sessions: Pick<SessionFinder, 'isConnected'>;
  /** Evicts what is cached of accounts that left. */
  accountsDropped: (accounts: readonly string[]) => Promise<void>;
}

export class AgentConnectedError extends CodedError<'AGENT_CONNECTED'> {
  constructor(agentId: string) {
    super(
      'AGENT_CONNECTED',
      `agent ${agentId} is connected: stop it (uninstall it) first; a connected agent's next hello would bring its accounts back`,
    );
  }
}

/**
 * Retires the agent; answers its static accounts, or undefined when no agent of the id is recorded.
 * Throws AgentConnectedError for a connected agent.
 */
export async function retireAgent(agentId: string, deps: AgentRetirementDeps): Promise<string[] | undefined> {
  if (await deps.sessions.isConnected(agentId)) throw new AgentConnectedError(agentId);
  const accounts = await deps.store.agents.retire(agentId);
  if (accounts === undefined) return undefined;
  const { registry, store, now } = deps;
  await deps.accountsDropped(
    await handOverStaticAccounts(accounts, agentId, { registry, agents: store.agents, now: now() }),
  );
  return accounts;
}
