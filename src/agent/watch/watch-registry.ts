// The watches the agent runs, one per (account, kind, namespace), with their state, the last
// resourceVersion seen and how many events they have received. Holds no objects. The admin view
// `/watches` and the metrics read it; the watches write every event and bookmark to it, so what it
// shows is where each watch is now, not where it was when it last listed.

export type WatchState = 'listing' | 'watching' | 'backoff' | 'forbidden' | 'stopped';

export interface WatchStatus {
  account: string;
  kind: string;
  namespace: string;
  state: WatchState;
  /** The last resourceVersion seen: of a list, an event or a bookmark. */
  resourceVersion: string;
  /** Object events (added, modified, deleted) received from watches since the scope started. */
  events: number;
  /** When the last of those events arrived; absent until the first. */
  lastEventAt?: string;
  /** When the scope was registered, as its account's watches started; a relist does not move it. */
  startedAt: string;
  /** When the scope entered its current state. */
  since: string;
  lastError?: string;
}

/** The time of a scope's last event, for the metrics. */
export interface LastEvent {
  account: string;
  kind: string;
  namespace: string;
  epochMs: number;
}

interface Entry extends Omit<WatchStatus, 'lastEventAt' | 'startedAt'> {
  /** Kept as a number: it changes on every event, and only the views need a string. */
  lastEventMs?: number;
  /** A number, as `lastEventMs`: only the views need a string. */
  startedMs: number;
}

const keyOf = (account: string, kind: string, namespace: string) =>
  `${account}\u0000${kind}\u0000${namespace}`;

export class WatchRegistry {
  readonly #watches = new Map<string, Entry>();
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  update(
    account: string,
    kind: string,
    namespace: string,
    change: Partial<Pick<WatchStatus, 'state' | 'resourceVersion' | 'lastError'>>,
  ) {
    const key = keyOf(account, kind, namespace);
    const previous = this.#watches.get(key);
    const stateChanged = change.state !== undefined && change.state !== previous?.state;
    const now = this.#now();
    this.#watches.set(key, {
      account,
      kind,
      namespace,
      state: 'listing',
      resourceVersion: '',
      events: 0,
      startedMs: now.getTime(),
      ...previous,
      ...change,
      since: stateChanged || previous === undefined ? now.toISOString() : previous.since,
    });
  }

  /** An object event arrived at `resourceVersion`. Updates in place: this runs for every event. */
  event(account: string, kind: string, namespace: string, resourceVersion: string): void {
    const entry = this.#watches.get(keyOf(account, kind, namespace));
    if (entry === undefined) return;
    entry.events++;
    entry.lastEventMs = this.#now().getTime();
    if (resourceVersion !== '') entry.resourceVersion = resourceVersion;
  }

  /** A bookmark moved the scope to `resourceVersion` without an object event. */
  bookmark(account: string, kind: string, namespace: string, resourceVersion: string): void {
    const entry = this.#watches.get(keyOf(account, kind, namespace));
    if (entry !== undefined && resourceVersion !== '') entry.resourceVersion = resourceVersion;
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

  /** The time of the last event of every scope that has had one. */
  lastEvents(): LastEvent[] {
    const out: LastEvent[] = [];
    for (const { account, kind, namespace, lastEventMs } of this.#watches.values()) {
      if (lastEventMs !== undefined) out.push({ account, kind, namespace, epochMs: lastEventMs });
    }
    return out;
  }

  list(): WatchStatus[] {
    return [...this.#watches.values()]
      .map(({ lastEventMs, startedMs, ...rest }) => {
        const status = { ...rest, startedAt: new Date(startedMs).toISOString() };
        return lastEventMs === undefined
          ? status
          : { ...status, lastEventAt: new Date(lastEventMs).toISOString() };
      })
      .sort(
        (a, b) =>
          a.account.localeCompare(b.account) ||
          a.kind.localeCompare(b.kind) ||
          a.namespace.localeCompare(b.namespace),
      );
  }
}
