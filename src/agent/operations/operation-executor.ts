// Runs operations sent by the control plane: finds the account's cluster and the handler, applies the
// deadline, records the operation in the journal, and returns a result that is never a thrown error.
// Operations are idempotent by id: a redelivered operation (a retry after a lost acknowledgement, a
// reconnect) gets the first run's result, or waits for the run still in progress; it never runs twice.
import { z } from 'zod';
import { isOperationType, OPERATION_TYPES, operationFailureSchema } from '../../contract/index.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { OperationError, toOperationError } from './operation-error.ts';
import { type HandlerRegistry, runHandler } from './operation-handler.ts';
import type { OperationJournal } from './operation-journal.ts';

export const operationSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  account: z.string().min(1),
  payload: z.unknown(),
  /** Milliseconds the operation may take; the agent's default when absent. */
  deadlineMs: z.int().min(1).optional(),
  /** Answer with a run this process has; never start one (cloudctl's repeat of an unsafe operation). */
  resumeOnly: z.boolean().optional(),
});
export type Operation = z.infer<typeof operationSchema>;

export const operationResultSchema = z.object({
  id: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: operationFailureSchema.optional(),
  durationMs: z.number(),
});
export type OperationResult = z.infer<typeof operationResultSchema>;

async function noSecrets(): Promise<string> {
  throw new OperationError('SECRET_UNRESOLVED', 'this agent was started without secret engines');
}

export interface OperationExecutorDeps {
  handlers: HandlerRegistry;
  clusterFor: (account: string) => AccountCluster | undefined;
  /** Why a served account has no cluster connection (its last failure), if it is served at all. */
  unavailableReason?: (account: string) => string | undefined;
  journal: OperationJournal;
  defaultDeadlineMs: number;
  /** How many finished operation ids are remembered for deduplication. */
  rememberResults: number;
  now: () => Date;
  /** Resolves secret references operations carry (an httpRequest's secret headers). */
  secret?: (reference: string) => Promise<string>;
  onFinished?: (operation: Operation, result: OperationResult) => void;
}

export class OperationExecutor {
  readonly #deps: OperationExecutorDeps;
  readonly #runs = new Map<string, Promise<OperationResult>>();

  constructor(deps: OperationExecutorDeps) {
    this.#deps = deps;
  }

  /** The operation types this agent carries out: every type of the contract. */
  get types(): string[] {
    return [...OPERATION_TYPES].sort();
  }

  execute(operation: Operation): Promise<OperationResult> {
    const existing = this.#runs.get(operation.id);
    if (existing !== undefined) return existing;
    if (operation.resumeOnly === true) return Promise.resolve(this.#notStarted(operation));
    const run = this.#run(operation);
    this.#runs.set(operation.id, run);
    // Forget the oldest ids beyond the limit; Map keeps insertion order.
    for (const id of this.#runs.keys()) {
      if (this.#runs.size <= this.#deps.rememberResults) break;
      this.#runs.delete(id);
    }
    return run;
  }

  /** A repeat of an operation this process never received: it may have run in an earlier one. */
  #notStarted(operation: Operation): OperationResult {
    const error = {
      code: 'NOT_STARTED' as const,
      message:
        `operation ${operation.id} (${operation.type}) was sent again after its session ended, and this agent ` +
        'process never received it (the agent restarted since): it is not safe to run twice, so it was not ' +
        'started here, and whether the earlier process ran it is unknown',
    };
    const result = { id: operation.id, ok: false, error, durationMs: 0 };
    this.#deps.onFinished?.(operation, result);
    return result;
  }

  async #run(operation: Operation): Promise<OperationResult> {
    const started = this.#deps.now().getTime();
    const finish = (outcome: Omit<OperationResult, 'id' | 'durationMs'>): OperationResult => {
      const result = { id: operation.id, ...outcome, durationMs: this.#deps.now().getTime() - started };
      this.#deps.journal.end(operation.id, result.ok ? 'succeeded' : 'failed', result.error?.message);
      this.#deps.onFinished?.(operation, result);
      return result;
    };
    const shutdown = this.#deps.journal.begin(operation.id, operation.type, operation.account);
    if (shutdown === undefined) {
      const error = {
        code: 'SHUTTING_DOWN' as const,
        message: 'the agent is shutting down and takes no new operations',
      };
      this.#deps.onFinished?.(operation, { id: operation.id, ok: false, error, durationMs: 0 });
      return { id: operation.id, ok: false, error, durationMs: 0 };
    }
    const signal = AbortSignal.any([
      shutdown,
      AbortSignal.timeout(operation.deadlineMs ?? this.#deps.defaultDeadlineMs),
    ]);
    try {
      const { type } = operation;
      if (!isOperationType(type)) {
        throw new OperationError(
          'UNKNOWN_OPERATION',
          `unknown operation type '${operation.type}'; known: ${this.types.join(', ')}`,
        );
      }
      const cluster = this.#deps.clusterFor(operation.account);
      if (cluster === undefined) {
        const reason = this.#deps.unavailableReason?.(operation.account);
        throw reason === undefined
          ? new OperationError('UNKNOWN_ACCOUNT', `this agent does not serve account '${operation.account}'`)
          : new OperationError('UNREACHABLE', `account '${operation.account}' is not connected: ${reason}`);
      }
      const result = await runHandler(this.#deps.handlers, type, operation.payload, {
        cluster,
        signal,
        now: this.#deps.now,
        secret: this.#deps.secret ?? noSecrets,
      });
      return finish({ ok: true, result });
    } catch (error) {
      return finish({ ok: false, error: toOperationError(error, signal) });
    }
  }
}
