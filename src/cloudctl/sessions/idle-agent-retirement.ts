// Retires agents that have had no session for `agentRetirement.notSeenForSeconds` (off at 0): an
// uninstalled agent's static accounts would otherwise stay ORPHANED in every list and hold their
// names for ever. Every replica looks, every quarter of the period (at most once a minute, at least
// once a second); retiring is one transaction, so two replicas retiring one agent retire it once.
import type { Logger } from 'pino';
import { AgentConnectedError, type AgentRetirementDeps, retireAgent } from './agent-retirement.ts';

export interface IdleAgentRetirementDeps extends AgentRetirementDeps {
  notSeenForSeconds: number;
  logger: Logger;
}

export class IdleAgentRetirement {
  readonly #deps: IdleAgentRetirementDeps;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> = Promise.resolve();

  constructor(deps: IdleAgentRetirementDeps) {
    this.#deps = deps;
  }

  start(): void {
    const periodMs = this.#deps.notSeenForSeconds * 1000;
    if (periodMs === 0 || this.#timer !== undefined) return;
    const everyMs = Math.min(60_000, Math.max(1_000, periodMs / 4));
    this.#timer = setInterval(() => {
      this.#sweeping = this.#sweep().catch((error: unknown) =>
        this.#deps.logger.error({ err: error }, 'idle agent retirement failed'),
      );
    }, everyMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { store, now, notSeenForSeconds, logger } = this.#deps;
    const cutoff = now().getTime() - notSeenForSeconds * 1000;
    for (const agent of await store.agents.agents()) {
      // The stored flag may lag a session that just ended; the heartbeat time is what ages.
      if (agent.lastHeartbeatAt.getTime() > cutoff) continue;
      if (await this.#deps.sessions.isConnected(agent.id)) continue;
      // Connected since it was listed: it stays. Anything else fails the sweep, which logs it.
      const accounts = await retireAgent(agent.id, this.#deps).catch((error: unknown) => {
        if (error instanceof AgentConnectedError) return undefined;
        throw error;
      });
      if (accounts === undefined) continue;
      logger.info(
        { agentId: agent.id, accounts, lastSeen: agent.lastHeartbeatAt.toISOString() },
        `retired agent ${agent.id}: no session for more than ${notSeenForSeconds} s (agentRetirement.notSeenForSeconds)`,
      );
    }
  }
}
