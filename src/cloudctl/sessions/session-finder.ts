// Which agent session serves an account, and whether an agent is connected, wherever the session
// is: on this process (the registry) or, when cloudctl runs in replicas, on another one. HTTP reads
// answer from any replica, so their "connected" and "caching" flags ask here, not the registry.
import type { AgentRegistry } from './agent-registry.ts';

/** The other replicas' sessions, as the replicas feature publishes them. */
export interface RemoteSessionFinder {
  holderOf(account: string): Promise<{ agentId: string } | undefined>;
  agentConnected(agentId: string): Promise<boolean>;
  dynamicAgentIn(zoneId: string | null): Promise<boolean>;
}

export class SessionFinder {
  readonly #registry: Pick<AgentRegistry, 'sessionFor' | 'isConnected' | 'newestSessions'>;
  readonly #remote: RemoteSessionFinder | undefined;

  constructor(
    registry: Pick<AgentRegistry, 'sessionFor' | 'isConnected' | 'newestSessions'>,
    remote?: RemoteSessionFinder,
  ) {
    this.#registry = registry;
    this.#remote = remote;
  }

  /** The agent whose session gets the account's work, here or on another replica. */
  async servingAgent(account: string): Promise<string | undefined> {
    const local = this.#registry.sessionFor(account);
    if (local !== undefined) return local.agentId;
    return (await this.#remote?.holderOf(account))?.agentId;
  }

  async isConnected(agentId: string): Promise<boolean> {
    if (this.#registry.isConnected(agentId)) return true;
    return (await this.#remote?.agentConnected(agentId)) ?? false;
  }

  /** Whether a connected agent takes dynamic accounts (in the zone, when one is given). */
  async dynamicAgentIn(zoneId: string | null): Promise<boolean> {
    const here = this.#registry
      .newestSessions()
      .some((s) => s.dynamicAccounts.enabled && (zoneId === null || s.zoneId === zoneId));
    return here || ((await this.#remote?.dynamicAgentIn(zoneId)) ?? false);
  }
}
