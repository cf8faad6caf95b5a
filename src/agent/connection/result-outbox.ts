// Operation results on their way to the control plane (`cloudctl.responseRetries.*`). Each result is
// delivered on its own with `OperationResults.Report` (idempotent by id, so a retry is harmless).
//
// Semantics (docs/decisions.md, "Result outbox"):
// - results wait in memory while the agent is not connected; such waiting costs no retry, so a result
//   produced during an outage is delivered once the next session is registered;
// - an attempt that fails while connected is retried `maxRetries` times, `backOffMs` apart
//   (`enabled: false`: one attempt); an attempt cut short by the connection dropping is not counted;
// - NOT_FOUND (cloudctl never sent that id) and INVALID_ARGUMENT are final: retrying cannot help;
// - a result that runs out of retries, or finds the outbox full, is logged and counted, never thrown.

import { status } from '@grpc/grpc-js';
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import type { OperationResult as OperationResultMessage } from '../../proto/index.ts';

export interface ResultOutboxOptions {
  enabled: boolean;
  maxRetries: number;
  backOffMs: number;
  /** Results held at most; a result beyond it is dropped (logged and counted). */
  capacity: number;
  /** One delivery attempt; rejects with the call's error. */
  deliver: (message: OperationResultMessage) => Promise<void>;
  logger: Log;
  /** Called once per result given up on, for the metric. */
  onGiveUp?: (reason: string) => void;
}

const FINAL_CODES: ReadonlySet<number> = new Set([status.NOT_FOUND, status.INVALID_ARGUMENT]);

function statusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = Reflect.get(error, 'code');
  return typeof code === 'number' ? code : undefined;
}

export class ResultOutbox {
  readonly #options: ResultOutboxOptions;
  readonly #pending = new Map<string, OperationResultMessage>();
  #connected = false;
  /** Counts connection changes, so an attempt can tell whether the connection dropped under it. */
  #epoch = 0;
  #wakeConnected: Array<() => void> = [];
  #wakeDrained: Array<() => void> = [];
  #timers = new Set<NodeJS.Timeout>();
  #stopped = false;
  #delivered = 0;
  #undelivered = 0;

  constructor(options: ResultOutboxOptions) {
    this.#options = options;
  }

  /** Results not yet delivered. */
  get pending(): number {
    return this.#pending.size;
  }

  get delivered(): number {
    return this.#delivered;
  }

  /** Results given up on (retries exhausted, final refusal, outbox full, stopped). */
  get undelivered(): number {
    return this.#undelivered;
  }

  add(message: OperationResultMessage): void {
    const id = message.operationId ?? '';
    if (this.#stopped) {
      this.#giveUp(id, 'the connection is stopped');
      return;
    }
    if (this.#pending.has(id)) return;
    if (this.#pending.size >= this.#options.capacity) {
      this.#giveUp(id, `the outbox holds ${this.#options.capacity} results already`);
      return;
    }
    this.#pending.set(id, message);
    void this.#deliverLoop(id, message);
  }

  /** A session is registered: waiting results go out. */
  connected(): void {
    this.#connected = true;
    this.#epoch++;
    for (const wake of this.#wakeConnected.splice(0)) wake();
  }

  /** The session ended: attempts pause until the next one. */
  disconnected(): void {
    this.#connected = false;
    this.#epoch++;
  }

  /** Resolves when every result is delivered or given up, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.#pending.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#wakeDrained.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Gives up on whatever is still pending (logged and counted). */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const id of [...this.#pending.keys()]) this.#finish(id, false, 'the connection stopped first');
    for (const wake of this.#wakeConnected.splice(0)) wake();
  }

  async #deliverLoop(id: string, message: OperationResultMessage): Promise<void> {
    const { enabled, maxRetries, backOffMs, deliver } = this.#options;
    let retriesLeft = enabled ? maxRetries : 0;
    let attempts = 0;
    while (!this.#stopped && this.#pending.has(id)) {
      if (!this.#connected) {
        await new Promise<void>((resolve) => this.#wakeConnected.push(resolve));
        continue;
      }
      const epoch = this.#epoch;
      attempts++;
      try {
        await deliver(message);
        this.#finish(id, true, `delivered after ${attempts} attempt(s)`);
        return;
      } catch (error) {
        if (this.#stopped) return;
        const code = statusCode(error);
        if (code !== undefined && FINAL_CODES.has(code)) {
          this.#finish(
            id,
            false,
            `refused by the control plane: ${error instanceof Error ? error.message : code}`,
          );
          return;
        }
        if (!this.#connected || epoch !== this.#epoch) {
          // The connection dropped under the attempt: wait for the next session, uncounted.
          attempts--;
          continue;
        }
        if (retriesLeft === 0) {
          const reason = error instanceof Error ? error.message : String(error);
          this.#finish(id, false, `${attempts} attempt(s) failed, the last with: ${reason}`);
          return;
        }
        retriesLeft--;
        this.#options.logger.warn(
          { operationId: id, retriesLeft, retryInMs: backOffMs, cause: causeOf(error) },
          'operation result not delivered; retrying',
        );
        await this.#sleep(backOffMs);
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  #finish(id: string, delivered: boolean, detail: string): void {
    if (!this.#pending.delete(id)) return;
    if (delivered) {
      this.#delivered++;
      this.#options.logger.debug({ operationId: id }, `operation result ${detail}`);
    } else {
      this.#giveUp(id, detail);
    }
    if (this.#pending.size === 0) for (const wake of this.#wakeDrained.splice(0)) wake();
  }

  #giveUp(id: string, reason: string): void {
    this.#undelivered++;
    this.#options.onGiveUp?.(reason);
    this.#options.logger.error(
      { operationId: id, undeliveredResults: this.#undelivered },
      `operation result dropped: ${reason}`,
    );
  }
}
