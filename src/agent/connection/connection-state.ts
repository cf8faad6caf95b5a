// The connection's explicit state machine. Every change goes through `to()`, which refuses
// transitions the design does not have, keeps the `orch_agent_connection_state` gauge in step and
// tells listeners (tests, readiness).
//
//   idle ──start──▶ connecting ──registered──▶ connected
//                     │  ▲                        │
//            failed   ▼  │ timer          ended   │
//                    backoff ◀────────────────────┘
//   any state ──stop──▶ stopped (final)
import type { AgentMetrics, ConnectionStateName } from '../observability/index.ts';
import { setConnectionState } from '../observability/index.ts';

const ALLOWED: Record<ConnectionStateName, readonly ConnectionStateName[]> = {
  idle: ['connecting', 'stopped'],
  // connecting → connecting: a deliberate restart (keepAliveOperationSeconds) reconnects at once.
  connecting: ['connected', 'backoff', 'stopped'],
  connected: ['backoff', 'connecting', 'stopped'],
  backoff: ['connecting', 'stopped'],
  stopped: [],
};

export type StateListener = (state: ConnectionStateName, previous: ConnectionStateName, at: number) => void;

export class ConnectionState {
  readonly #metrics: AgentMetrics;
  readonly #now: () => number;
  readonly #listeners = new Set<StateListener>();
  #state: ConnectionStateName = 'idle';
  #since: number;

  constructor(metrics: AgentMetrics, now: () => number) {
    this.#metrics = metrics;
    this.#now = now;
    this.#since = now();
    setConnectionState(metrics, 'idle');
  }

  get current(): ConnectionStateName {
    return this.#state;
  }

  /** When the current state was entered (ms since the epoch). */
  get since(): number {
    return this.#since;
  }

  to(next: ConnectionStateName): void {
    const previous = this.#state;
    if (!ALLOWED[previous].includes(next)) {
      throw new Error(`connection state ${previous} cannot become ${next}`);
    }
    this.#state = next;
    this.#since = this.#now();
    setConnectionState(this.#metrics, next);
    for (const listener of this.#listeners) listener(next, previous, this.#since);
  }

  onChange(listener: StateListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
