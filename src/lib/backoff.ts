// Exponential backoff between attempts (reconnects, watch restarts), in the shape of grpc-js's
// backoff-timeout.ts: explicit options, runOnce/stop/reset, no hidden global state. Clock and random
// source are injectable so tests can drive time. backoffSleep() is the same, awaited in a loop.
import { untilWokenOrAborted } from './signalled-wait.ts';

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

/** A Backoff to await in a loop, for code that sleeps between attempts rather than scheduling them. */
export interface BackoffSleep {
  /** The delay the next wait() will take, before jitter. */
  readonly nextDelayMs: number;
  /** Waits the current delay, or until `signal` aborts, and grows the delay for the time after. */
  wait(signal: AbortSignal): Promise<void>;
  /** After a success: the next wait is the initial delay again. */
  reset(): void;
}

export function backoffSleep(options: BackoffOptions): BackoffSleep {
  let wake = () => {};
  const backoff = new Backoff(() => wake(), options);
  return {
    get nextDelayMs() {
      return backoff.nextDelayMs;
    },
    async wait(signal) {
      await untilWokenOrAborted((woken) => {
        wake = woken;
        backoff.runOnce();
      }, signal);
      // Aborted: the timer must not outlive the wait.
      backoff.stop();
    },
    reset: () => backoff.reset(),
  };
}
