// The beat of work held under leases (tasks, deployments): every `everyMs` the leases of what runs in
// this process are renewed, and work whose owner stopped renewing (a dead replica) is taken over.
// A lease lost while its work still runs here means a stall longer than the lease; the log says so
// loudly, since the other owner's next write would race this one's.
import type { Logger } from 'pino';
import type { Leases } from './lease-store.ts';

export interface LeaseSweeperOptions {
  leases: Leases;
  everyMs: number;
  /** Keys of the work running in this process now. */
  running: () => string[];
  /** Claims and starts unfinished work whose lease is free. */
  takeOver: () => Promise<unknown>;
  logger: Logger;
  /** What the work is, for the log (`task`, `deployment`). */
  what: string;
}

export class LeaseSweeper {
  readonly #options: LeaseSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> = Promise.resolve();

  constructor(options: LeaseSweeperOptions) {
    this.#options = options;
  }

  start(): void {
    const { everyMs, logger, what } = this.#options;
    this.#timer = setInterval(() => {
      this.#sweeping = this.#sweep().catch((error: unknown) =>
        logger.warn({ err: error }, `${what} lease sweep failed`),
      );
    }, everyMs);
    this.#timer.unref();
  }

  /** Stops sweeping; resolves once a sweep under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { leases, running, takeOver, logger, what } = this.#options;
    const keys = running();
    const kept = new Set(await leases.renew(keys));
    // Work that finished while the renewal ran released its own lease: only what still runs has lost one.
    const stillRunning = new Set(running());
    for (const key of keys) {
      if (!kept.has(key) && stillRunning.has(key))
        logger.error({ [`${what}Id`]: key }, `lost the lease of a running ${what}`);
    }
    await takeOver();
  }
}
