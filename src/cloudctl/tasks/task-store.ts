// Tasks as stored: the steps a POST /ops asked for, how far the task got, its history and results.
// A step records its operation id before the operation is sent, so a restarted cloudctl finds the
// operation again instead of sending it twice.
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { operationCallSchema } from '../../contract/index.ts';
import { nextWatchSeq, WatchSignal, writeInSequence } from '../store/index.ts';
import type { TasksTable, TaskTables } from './task-tables.ts';

export const taskStepSchema = z
  .object({
    /** The operation name the client sent (deployManifest). */
    name: z.string(),
    phase: z.string(),
    description: z.string(),
    /** The client's payload as parsed, for shaping the result object. */
    input: z.unknown(),
    account: z.string(),
    /** What the converter found that the result object reports; absent for most operations. */
    details: z.unknown().optional(),
    operationId: z.string().nullable(),
  })
  // The agent operation: `type` and `payload`, checked together against the contract.
  .and(operationCallSchema);
export type TaskStep = z.infer<typeof taskStepSchema>;

export const historyEntrySchema = z.object({ phase: z.string(), status: z.string() });
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export type TaskState = 'STARTED' | 'COMPLETED' | 'FAILED';

export interface StoredTask {
  id: string;
  requestId: string | null;
  user: string;
  accounts: string[];
  steps: TaskStep[];
  nextStep: number;
  state: TaskState;
  history: HistoryEntry[];
  resultObjects: unknown[];
  createdAt: Date;
  updatedAt: Date;
}

const stored = {
  steps: z.array(taskStepSchema),
  accounts: z.array(z.string()),
  history: z.array(historyEntrySchema),
  resultObjects: z.array(z.unknown()),
  state: z.enum(['STARTED', 'COMPLETED', 'FAILED']),
};

function toTask(row: Selectable<TasksTable>): StoredTask {
  return {
    id: row.id,
    requestId: row.request_id,
    user: row.user_name,
    accounts: stored.accounts.parse(row.accounts),
    steps: stored.steps.parse(row.steps),
    nextStep: row.next_step,
    state: stored.state.parse(row.state),
    history: stored.history.parse(row.history),
    resultObjects: stored.resultObjects.parse(row.result_objects),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type TaskProgress = Pick<StoredTask, 'steps' | 'nextStep' | 'state' | 'history' | 'resultObjects'>;

export class TaskStore {
  readonly #db: Kysely<TaskTables>;

  readonly #signal: WatchSignal;

  constructor(db: Kysely<TaskTables>, signal = new WatchSignal()) {
    this.#db = db;
    this.#signal = signal;
  }

  /**
   * Stores a new task; when its request id is taken already (a client's retry, perhaps racing the
   * first attempt), stores nothing and returns the task that holds it.
   */
  async create(task: StoredTask): Promise<StoredTask> {
    const inserted = await writeInSequence(this.#db, (tx) =>
      tx
        .insertInto('tasks')
        .values({
          id: task.id,
          request_id: task.requestId,
          user_name: task.user,
          accounts: JSON.stringify(task.accounts),
          steps: JSON.stringify(task.steps),
          next_step: task.nextStep,
          state: task.state,
          history: JSON.stringify(task.history),
          result_objects: JSON.stringify(task.resultObjects),
          created_at: task.createdAt,
          updated_at: task.updatedAt,
        })
        .onConflict((oc) => oc.column('request_id').doNothing())
        .returning('id')
        .executeTakeFirst(),
    );
    this.#signal.changed();
    if (inserted !== undefined || task.requestId === null) return task;
    const existing = await this.byRequestId(task.requestId);
    if (existing === undefined) throw new Error(`task with request id ${task.requestId} vanished`);
    return existing;
  }

  async get(id: string): Promise<StoredTask | undefined> {
    const row = await this.#db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toTask(row);
  }

  async byRequestId(requestId: string): Promise<StoredTask | undefined> {
    const row = await this.#db
      .selectFrom('tasks')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row === undefined ? undefined : toTask(row);
  }

  async update(id: string, progress: TaskProgress, now: Date): Promise<void> {
    await writeInSequence(this.#db, (tx) =>
      tx
        .updateTable('tasks')
        .set({
          steps: JSON.stringify(progress.steps),
          next_step: progress.nextStep,
          state: progress.state,
          history: JSON.stringify(progress.history),
          result_objects: JSON.stringify(progress.resultObjects),
          updated_at: now,
          watch_seq: nextWatchSeq,
        })
        .where('id', '=', id)
        .execute(),
    );
    this.#signal.changed();
  }

  /** Tasks still running: after a restart, these are carried on. */
  async unfinished(): Promise<StoredTask[]> {
    const rows = await this.#db.selectFrom('tasks').selectAll().where('state', '=', 'STARTED').execute();
    return rows.map(toTask);
  }

  /** Tasks written with a watch number in (after, upTo], in number order, at most `limit` (watch/). */
  async numbered(after: number, upTo: number, limit: number): Promise<{ seq: number; task: StoredTask }[]> {
    const rows = await this.#db
      .selectFrom('tasks')
      .selectAll()
      .where('watch_seq', '>', String(after))
      .where('watch_seq', '<=', String(upTo))
      .orderBy('watch_seq')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ seq: Number(row.watch_seq), task: toTask(row) }));
  }

  /** The newest tasks first. */
  async recent(limit: number): Promise<StoredTask[]> {
    const rows = await this.#db
      .selectFrom('tasks')
      .selectAll()
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toTask);
  }
}
