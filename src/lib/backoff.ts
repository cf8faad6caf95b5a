// Exponential backoff between attempts (reconnects, watch restarts), in the shape of grpc-js's
// backoff-timeout.ts: explicit options, runOnce/stop/reset, no hidden global state. Clock and random
// source are injectable so tests can drive time.

export interface BackoffClock {
  /** Calls `callback` after `ms`; returns what cancels it. */
  schedule(callback: () => void, ms: number): () => void;
}

export interface BackoffOptions {
  /** Delay before the first retry. */
  initialDelayMs: number;
  /** Factor applied after each attempt; above 1 to grow. */
  multiplier: number;
  /** Randomization: each delay is spread uniformly over ±jitter of its value (0.2 = ±20 %). */
  jitter: number;
  /** Upper bound of the delay before jitter. */
  maxDelayMs: number;
  clock?: BackoffClock;
  /** Uniform in [0, 1). */
  random?: () => number;
}

const systemClock: BackoffClock = {
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

export class Backoff {
  readonly #callback: () => void;
  readonly #options: Required<BackoffOptions>;
  #nextDelayMs: number;
  #cancel: (() => void) | undefined;
  #running = false;

  constructor(callback: () => void, options: BackoffOptions) {
    this.#callback = callback;
    this.#options = { clock: systemClock, random: Math.random, ...options };
    this.#nextDelayMs = options.initialDelayMs;
  }

  /** The delay the next runOnce() will wait, before jitter. */
  get nextDelayMs(): number {
    return this.#nextDelayMs;
  }

  isRunning(): boolean {
    return this.#running;
  }

  /** Calls the callback once after the current delay, and grows the delay for the time after. */
  runOnce(): number {
    const { clock, jitter, multiplier, maxDelayMs, random } = this.#options;
    const base = this.#nextDelayMs;
    const delay = Math.max(0, base + base * jitter * (random() * 2 - 1));
    this.stop();
    this.#running = true;
    this.#cancel = clock.schedule(() => {
      this.#running = false;
      this.#cancel = undefined;
      this.#callback();
    }, delay);
    this.#nextDelayMs = Math.min(base * multiplier, maxDelayMs);
    return delay;
  }

  /** Cancels a pending callback; the delay is kept. */
  stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#running = false;
  }

  /** After a success: the next delay is the initial one again. A pending callback keeps its time. */
  reset(): void {
    this.#nextDelayMs = this.#options.initialDelayMs;
  }
}
