// How fast each account's resource events arrive: a sliding window of one-second buckets, fed by the
// caching service as it commits batches and read by the cache introspection. In memory by nature: a
// rate is about the last minute of this process. The clock is passed in with every call.
const BUCKET_MS = 1000;

export interface IngestRateOptions {
  /** The window the rate is averaged over; one minute. */
  windowSeconds?: number;
}

interface Window {
  /** Events per bucket; bucket i holds the second whose number modulo the length is i. */
  counts: number[];
  /** The second each bucket was last written in, to tell a stale bucket from a current one. */
  seconds: number[];
}

export class IngestRate {
  readonly #size: number;
  readonly #accounts = new Map<string, Window>();

  constructor(options: IngestRateOptions = {}) {
    this.#size = options.windowSeconds ?? 60;
  }

  /** Counts `events` for the account at `at`. */
  record(account: string, events: number, at: Date): void {
    if (events <= 0) return;
    let window = this.#accounts.get(account);
    if (window === undefined) {
      window = { counts: new Array(this.#size).fill(0), seconds: new Array(this.#size).fill(-1) };
      this.#accounts.set(account, window);
    }
    const second = Math.floor(at.getTime() / BUCKET_MS);
    const slot = second % this.#size;
    if (window.seconds[slot] !== second) {
      window.seconds[slot] = second;
      window.counts[slot] = 0;
    }
    window.counts[slot] = (window.counts[slot] ?? 0) + events;
  }

  /** Events per second for the account, averaged over the window that ends at `at`. */
  perSecond(account: string, at: Date): number {
    const window = this.#accounts.get(account);
    if (window === undefined) return 0;
    const now = Math.floor(at.getTime() / BUCKET_MS);
    let total = 0;
    for (let slot = 0; slot < this.#size; slot++) {
      const second = window.seconds[slot] ?? -1;
      if (second > now - this.#size && second <= now) total += window.counts[slot] ?? 0;
    }
    return total / this.#size;
  }
}
