// The watches the agent runs, one per (account, kind, namespace), with their state and the last
// resourceVersion seen. Holds no objects. The admin view `/watches` and the metrics read it.

export type WatchState = 'listing' | 'watching' | 'backoff' | 'forbidden' | 'stopped';

export interface WatchStatus {
  account: string;
  kind: string;
  namespace: string;
  state: WatchState;
  resourceVersion: string;
  events: number;
  since: string;
  lastError?: string;
}

const keyOf = (account: string, kind: string, namespace: string) =>
  `${account}\u0000${kind}\u0000${namespace}`;

export class WatchRegistry {
  readonly #watches = new Map<string, WatchStatus>();
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  update(
    account: string,
    kind: string,
    namespace: string,
    change: Partial<Omit<WatchStatus, 'account' | 'kind' | 'namespace'>>,
  ) {
    const key = keyOf(account, kind, namespace);
    const previous = this.#watches.get(key);
    const stateChanged = change.state !== undefined && change.state !== previous?.state;
    this.#watches.set(key, {
      account,
      kind,
      namespace,
      state: 'listing',
      resourceVersion: '',
      events: 0,
      ...previous,
      ...change,
      since: stateChanged || previous === undefined ? this.#now().toISOString() : previous.since,
    });
  }

  remove(account: string, kind?: string, namespace?: string): void {
    for (const [key, watch] of this.#watches) {
      if (
        watch.account === account &&
        (kind === undefined || watch.kind === kind) &&
        (namespace === undefined || watch.namespace === namespace)
      ) {
        this.#watches.delete(key);
      }
    }
  }

  active(): number {
    let n = 0;
    for (const watch of this.#watches.values()) if (watch.state === 'watching') n++;
    return n;
  }

  list(): WatchStatus[] {
    return [...this.#watches.values()].sort(
      (a, b) =>
        a.account.localeCompare(b.account) ||
        a.kind.localeCompare(b.kind) ||
        a.namespace.localeCompare(b.namespace),
    );
  }
}
