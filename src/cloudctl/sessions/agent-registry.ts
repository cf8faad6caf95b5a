// The agents connected right now: one entry per session (an agent's replicas each hold their own),
// with what each said at hello and when it last sent a heartbeat. In memory by nature: a session
// lives exactly as long as its stream.
import type { ControlMessage } from '../../proto/index.ts';

export interface SessionAccount {
  name: string;
  permissions: { read: string[]; write: string[] };
  apiServerHost: string;
  kubernetesVersion: string;
  /** Its definition's origin: the agent's config file, or an assignment by cloudctl. */
  source: 'static-agent-config' | 'cloudctl';
}

/** What the agent said at hello about taking dynamic accounts (its dynamicAccounts settings). */
export interface DynamicAccountSettings {
  /** false: cloudctl sends it no add_accounts at all. */
  enabled: boolean;
  interceptorEnabled: boolean;
  /** Most accounts per add_accounts message; 0 when the agent set no bound. */
  scanBatchSize: number;
  /** How often its subscription is scanned; 0 when it subscribes to nothing. */
  scanFrequencySeconds: number;
  namePatterns: string[];
  credentialScanNamePatterns: string[];
}

export interface AgentSession {
  sessionId: string;
  agentId: string;
  version: string;
  zoneId: string;
  replicaCount: number;
  accounts: SessionAccount[];
  dynamicAccounts: DynamicAccountSettings;
  /** How long the agent keeps retrying to deliver a result (hello.result_retry_window_ms). */
  resultRetryWindowMs: number;
  connectedAt: Date;
  lastHeartbeatAt: Date;
  /** Writes to the session's stream; false when the stream is gone. */
  send(message: ControlMessage): boolean;
}

export type SessionView = Omit<AgentSession, 'send'>;

export class AgentRegistry {
  readonly #sessions = new Map<string, AgentSession>();
  readonly #changeListeners: Array<() => void> = [];

  add(session: AgentSession): void {
    this.#sessions.set(session.sessionId, session);
    this.#changed();
  }

  remove(sessionId: string): void {
    if (this.#sessions.delete(sessionId)) this.#changed();
  }

  /** Called after a session is added or removed or its accounts change (not on heartbeats). */
  onChange(listener: () => void): void {
    this.#changeListeners.push(listener);
  }

  #changed(): void {
    for (const listener of this.#changeListeners) listener();
  }

  session(sessionId: string): AgentSession | undefined {
    return this.#sessions.get(sessionId);
  }

  heartbeat(sessionId: string, at: Date): void {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) session.lastHeartbeatAt = at;
  }

  /** Adds or drops accounts of a session (dynamic accounts). */
  setAccounts(sessionId: string, accounts: SessionAccount[]): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    session.accounts = accounts;
    this.#changed();
  }

  list(): SessionView[] {
    return [...this.#sessions.values()].map(({ send: _send, ...view }) => ({
      ...view,
      accounts: view.accounts.map((a) => ({ ...a })),
      dynamicAccounts: { ...view.dynamicAccounts },
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

  /** The newest session of every connected agent: where cloudctl sends what concerns the agent. */
  newestSessions(): AgentSession[] {
    const newest = new Map<string, AgentSession>();
    for (const session of this.#sessions.values()) {
      const chosen = newest.get(session.agentId);
      if (chosen === undefined || session.connectedAt >= chosen.connectedAt)
        newest.set(session.agentId, session);
    }
    return [...newest.values()];
  }

  /**
   * The session to send an account's work to: the most recently connected one that serves it, an
   * agent's own (static) definition before cloudctl's, as the agent's definition wins.
   */
  sessionFor(account: string): AgentSession | undefined {
    let chosen: AgentSession | undefined;
    let chosenStatic = false;
    for (const session of this.#sessions.values()) {
      const served = session.accounts.find((a) => a.name === account);
      if (served === undefined) continue;
      const isStatic = served.source === 'static-agent-config';
      if (chosenStatic && !isStatic) continue;
      if (chosen === undefined || (isStatic && !chosenStatic) || session.connectedAt >= chosen.connectedAt) {
        chosen = session;
        chosenStatic = isStatic;
      }
    }
    return chosen;
  }
}
