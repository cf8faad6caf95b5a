// The agents connected right now: one entry per session (an agent's replicas each hold their own),
// with what each said at hello and when it last sent a heartbeat. In memory by nature: a session
// lives exactly as long as its stream.
import type { ControlMessage } from '../../proto/index.ts';

export interface SessionAccount {
  name: string;
  permissions: { read: string[]; write: string[] };
  apiServerHost: string;
  kubernetesVersion: string;
}

export interface AgentSession {
  sessionId: string;
  agentId: string;
  version: string;
  zoneId: string;
  replicaCount: number;
  accounts: SessionAccount[];
  connectedAt: Date;
  lastHeartbeatAt: Date;
  /** Writes to the session's stream; false when the stream is gone. */
  send(message: ControlMessage): boolean;
}

export type SessionView = Omit<AgentSession, 'send'>;

export class AgentRegistry {
  readonly #sessions = new Map<string, AgentSession>();

  add(session: AgentSession): void {
    this.#sessions.set(session.sessionId, session);
  }

  remove(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  heartbeat(sessionId: string, at: Date): void {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) session.lastHeartbeatAt = at;
  }

  /** Adds or drops accounts of a session (dynamic accounts). */
  setAccounts(sessionId: string, accounts: SessionAccount[]): void {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) session.accounts = accounts;
  }

  list(): SessionView[] {
    return [...this.#sessions.values()].map(({ send: _send, ...view }) => ({
      ...view,
      accounts: view.accounts.map((a) => ({ ...a })),
    }));
  }

  isConnected(agentId: string): boolean {
    return [...this.#sessions.values()].some((s) => s.agentId === agentId);
  }

  /** The agent's newest session, to send it what concerns the agent rather than one account. */
  newestSessionOf(agentId: string): AgentSession | undefined {
    let chosen: AgentSession | undefined;
    for (const session of this.#sessions.values()) {
      if (session.agentId !== agentId) continue;
      if (chosen === undefined || session.connectedAt >= chosen.connectedAt) chosen = session;
    }
    return chosen;
  }

  /** The session to send an account's work to: the most recently connected one that serves it. */
  sessionFor(account: string): AgentSession | undefined {
    let chosen: AgentSession | undefined;
    for (const session of this.#sessions.values()) {
      if (!session.accounts.some((a) => a.name === account)) continue;
      if (chosen === undefined || session.connectedAt >= chosen.connectedAt) chosen = session;
    }
    return chosen;
  }
}
