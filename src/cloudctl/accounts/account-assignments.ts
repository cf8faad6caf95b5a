// A direct assignment of accounts to one connected agent, below the dynamic accounts interface (which
// places cloudctl's accounts by zone, subscription and caching; see dynamic-accounts/): the store
// records the agent as their owner first, so the status it reports and the cache batches it streams
// for them are accepted, then the definitions go down the agent's session as add_accounts. The
// agent's watch tests drive it; everything user-facing goes through /vendor/accounts.
import { isRecord } from '../../lib/is-record.ts';
import type { AgentRegistry, AgentStore, SessionAccount } from '../sessions/index.ts';

export interface AccountAssignment {
  name: string;
  /** One `orchestrator.accounts[]` entry of the agent's config, without its name. */
  definition: Record<string, unknown>;
}

export class AccountAssignments {
  readonly #deps: { registry: AgentRegistry; store: { agents: AgentStore }; now: () => Date };

  constructor(deps: { registry: AgentRegistry; store: { agents: AgentStore }; now: () => Date }) {
    this.#deps = deps;
  }

  /** Assigns the accounts to the agent; false when the agent has no session to receive them. */
  async add(agentId: string, accounts: readonly AccountAssignment[]): Promise<boolean> {
    const { registry, store, now } = this.#deps;
    const session = registry.newestSessionOf(agentId);
    if (session === undefined) return false;
    const added: SessionAccount[] = accounts.map(({ name, definition }) => ({
      name,
      permissions: permissionsOf(definition.permissions),
      // Known once the agent has connected the account; it says so at its next hello.
      apiServerHost: '',
      kubernetesVersion: '',
      source: 'cloudctl',
    }));
    await store.agents.assign(agentId, added, now());
    const names = new Set(added.map((a) => a.name));
    registry.setAccounts(session.sessionId, [
      ...session.accounts.filter((a) => !names.has(a.name)),
      ...added,
    ]);
    return session.send({
      addAccounts: {
        accounts: accounts.map(({ name, definition }) => ({
          name,
          definition: Buffer.from(JSON.stringify(definition)),
        })),
      },
    });
  }
}

function roles(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The agent config's `permissions: { READ: [...], WRITE: [...] }` as the store keeps them. */
function permissionsOf(value: unknown): { read: string[]; write: string[] } {
  if (!isRecord(value)) return { read: [], write: [] };
  return { read: roles(value.READ), write: roles(value.WRITE) };
}
