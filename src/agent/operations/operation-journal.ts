// Operations in flight and the most recent finished ones. In-flight operations can be drained on
// shutdown: each gets until a deadline to finish, then its abort signal fires and it is reported as
// cut off. The admin view `/operations` reads the journal.
import { OperationError } from './operation-error.ts';

export type OperationOutcome = 'succeeded' | 'failed' | 'cut-off';

export interface OperationRecord {
  id: string;
  type: string;
  account: string;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  outcome?: OperationOutcome;
  message?: string;
}

interface InFlight {
  record: OperationRecord;
  startedMs: number;
  abort: AbortController;
  done: Promise<void>;
  finish: () => void;
}

export class OperationJournal {
  readonly #inFlight = new Map<string, InFlight>();
  readonly #recent: OperationRecord[] = [];
  readonly #capacity: number;
  readonly #now: () => number;
  #accepting = true;

  constructor(options: { capacity: number; now: () => number }) {
    this.#capacity = options.capacity;
    this.#now = options.now;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  /** Starts tracking an operation; returns its abort signal, or undefined once draining has begun. */
  begin(id: string, type: string, account: string): AbortSignal | undefined {
    if (!this.#accepting) return undefined;
    const { promise: done, resolve: finish } = Promise.withResolvers<void>();
    const startedMs = this.#now();
    const abort = new AbortController();
    this.#inFlight.set(id, {
      record: { id, type, account, startedAt: new Date(startedMs).toISOString() },
      startedMs,
      abort,
      done,
      finish,
    });
    return abort.signal;
  }

  end(id: string, outcome: OperationOutcome, message?: string): OperationRecord | undefined {
    const entry = this.#inFlight.get(id);
    if (entry === undefined) return undefined;
    this.#inFlight.delete(id);
    const finishedMs = this.#now();
    const record: OperationRecord = {
      ...entry.record,
      finishedAt: new Date(finishedMs).toISOString(),
      durationMs: finishedMs - entry.startedMs,
      outcome,
      ...(message === undefined ? {} : { message }),
    };
    this.#recent.unshift(record);
    this.#recent.length = Math.min(this.#recent.length, this.#capacity);
    entry.finish();
    return record;
  }

  inFlight(): OperationRecord[] {
    return [...this.#inFlight.values()].map((e) => e.record);
  }

  recent(): OperationRecord[] {
    return [...this.#recent];
  }

  /**
   * Stops accepting operations and waits up to `deadlineMs` for those in flight. Operations still
   * running then are aborted, recorded as cut off and returned so their failure can be reported.
   */
  async drain(deadlineMs: number): Promise<OperationRecord[]> {
    this.#accepting = false;
    const pending = [...this.#inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([Promise.all(pending.map((p) => p.done)), deadline]);
    clearTimeout(timer);
    const cut: OperationRecord[] = [];
    for (const entry of [...this.#inFlight.values()]) {
      entry.abort.abort(new OperationError('SHUTTING_DOWN', 'agent shutting down'));
      const record = this.end(
        entry.record.id,
        'cut-off',
        `not finished within the ${deadlineMs} ms shutdown deadline`,
      );
      if (record !== undefined) cut.push(record);
    }
    return cut;
  }
}
