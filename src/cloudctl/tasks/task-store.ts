// Tasks as stored: the steps a POST /ops asked for, how far the task got, its history and results.
// A step records its operation id before the operation is sent, so a restarted cloudctl finds the
// operation again instead of sending it twice. A task has one owner, the replica running it: progress
// is written only by the owner and only while the task runs, so a replica that lost the task (another
// took it over, or a client failed it for a restart) learns so at its next write and stops.
import { type Expression, type Kysely, type Selectable, sql } from 'kysely';
import { z } from 'zod';
import { operationCallSchema } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { nextWatchSeq, WatchSignal, writeInSequence, writeOneInSequence } from '../store/index.ts';
import { TaskChanges } from './task-changes.ts';
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
  /** The replica running the task, or the last one that ran it. */
  owner: string;
  /** A FAILED task that may be run again from where it stopped (POST .../restart, :resume). */
  retryable: boolean;
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

/**
 * A task as its readers see it: everything but its steps, which hold every manifest and answer
 * nobody (GET /task reads thousands of tasks' worth of them for nothing otherwise).
 */
export type TaskSummary = Omit<StoredTask, 'steps'>;

/** The columns of a summary: all but the steps. */
const SUMMARY_COLUMNS = [
  'id',
  'request_id',
  'user_name',
  'accounts',
  'next_step',
  'state',
  'owner_id',
  'retryable',
  'history',
  'result_objects',
  'created_at',
  'updated_at',
] as const;

function toSummary(row: Pick<Selectable<TasksTable>, (typeof SUMMARY_COLUMNS)[number]>): TaskSummary {
  return {
    id: row.id,
    requestId: row.request_id,
    user: row.user_name,
    accounts: stored.accounts.parse(row.accounts),
    nextStep: row.next_step,
    state: stored.state.parse(row.state),
    owner: row.owner_id,
    retryable: row.retryable,
    history: stored.history.parse(row.history),
    resultObjects: stored.resultObjects.parse(row.result_objects),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toTask(row: Selectable<TasksTable>): StoredTask {
  return { ...toSummary(row), steps: stored.steps.parse(row.steps) };
}

export type TaskProgress = Pick<
  StoredTask,
  'steps' | 'nextStep' | 'state' | 'retryable' | 'history' | 'resultObjects'
>;

/** The progress columns but the steps, which change only when a step's operation id is set. */
function progressColumns(progress: TaskProgress) {
  return {
    next_step: progress.nextStep,
    state: progress.state,
    retryable: progress.retryable,
    history: JSON.stringify(progress.history),
    result_objects: JSON.stringify(progress.resultObjects),
  };
}

/**
 * The task as its owner just wrote it, apart from the object the runner goes on changing: the lists
 * it appends to and the steps whose operation ids it sets are copied (the manifests inside are not:
 * nothing changes them).
 */
function writtenCopy(task: StoredTask, updatedAt: Date): StoredTask {
  return {
    ...task,
    steps: task.steps.map((step) => ({ ...step })),
    history: [...task.history],
    resultObjects: [...task.resultObjects],
    accounts: [...task.accounts],
    updatedAt,
  };
}

/** The history line of a task changing owner, worded as clouddriver's `updateOwnerId` words it. */
function reassigned(task: StoredTask, owner: string): HistoryEntry {
  return { phase: 'ORCHESTRATION', status: `Re-assigning task from: ${task.owner} to: ${owner}` };
}

export class TaskStore {
  readonly #db: Kysely<TaskTables>;

  readonly #signal: WatchSignal;

  /** Told of each task this store writes, by id: what a client following one waits on. */
  readonly changes = new TaskChanges<StoredTask>();

  constructor(db: Kysely<TaskTables>, signal = new WatchSignal()) {
    this.#db = db;
    this.#signal = signal;
  }

  /** After a commit: `task` as written, when the write answered it. */
  #written(id: string, task?: StoredTask): void {
    this.#signal.changed();
    this.changes.changed(id, task);
  }

  /**
   * Stores a new task; when its request id is taken already (a client's retry, perhaps racing the
   * first attempt), stores nothing and returns the task that holds it.
   */
  async create(task: StoredTask): Promise<StoredTask> {
    const inserted = await writeOneInSequence(this.#db, (db) =>
      db
        .insertInto('tasks')
        .values({
          id: task.id,
          request_id: task.requestId,
          user_name: task.user,
          accounts: JSON.stringify(task.accounts),
          steps: JSON.stringify(task.steps),
          next_step: task.nextStep,
          state: task.state,
          owner_id: task.owner,
          retryable: task.retryable,
          history: JSON.stringify(task.history),
          result_objects: JSON.stringify(task.resultObjects),
          created_at: task.createdAt,
          updated_at: task.updatedAt,
        })
        .onConflict((oc) => oc.column('request_id').doNothing())
        .returning('id')
        .executeTakeFirst(),
    );
    this.#written(task.id, inserted === undefined ? undefined : task);
    if (inserted !== undefined || task.requestId === null) return task;
    const existing = await this.byRequestId(task.requestId);
    if (existing === undefined) throw new Error(`task with request id ${task.requestId} vanished`);
    return existing;
  }

  async get(id: string): Promise<StoredTask | undefined> {
    const row = await this.#db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toTask(row);
  }

  /** The task without its steps: what a reader of it is answered (task-view.ts). */
  async summary(id: string): Promise<TaskSummary | undefined> {
    const row = await this.#db
      .selectFrom('tasks')
      .select(SUMMARY_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toSummary(row);
  }

  async byRequestId(requestId: string): Promise<StoredTask | undefined> {
    const row = await this.#db
      .selectFrom('tasks')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row === undefined ? undefined : toTask(row);
  }

  /** Writes a task's progress, whoever runs it (the runner writes through `saveAsOwner`). */
  async update(id: string, progress: TaskProgress, now: Date): Promise<void> {
    const row = await writeOneInSequence(this.#db, (db) =>
      db
        .updateTable('tasks')
        .set({
          ...progressColumns(progress),
          steps: JSON.stringify(progress.steps),
          updated_at: now,
          watch_seq: nextWatchSeq,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),
    );
    this.#written(id, row === undefined ? undefined : toTask(row));
  }

  /**
   * Writes the progress of a running task as its owner: false, writing nothing, when `owner` no
   * longer owns it or it no longer runs (another replica took it over; a client failed it). The steps
   * are written again only when `stepsChanged` (an operation id was set): they hold every manifest,
   * and the other progress columns are a fraction of their size. `alongside`, a write of another
   * table, runs in the same statement: in when the progress is (a deploy step's record, DeployRecords).
   */
  async saveAsOwner(
    task: StoredTask,
    owner: string,
    now: Date,
    { stepsChanged, alongside }: { stepsChanged: boolean; alongside?: Expression<Record<string, unknown>> },
  ): Promise<boolean> {
    const steps = stepsChanged ? { steps: JSON.stringify(task.steps) } : {};
    const row = await writeOneInSequence(this.#db, (db) =>
      // Kysely writes a raw common table expression as given: the parentheses are the statement's.
      (alongside === undefined
        ? db
        : db.with('alongside', () => sql<Record<string, unknown>>`(${alongside})`)
      )
        .updateTable('tasks')
        .set({ ...progressColumns(task), ...steps, updated_at: now, watch_seq: nextWatchSeq })
        .where('id', '=', task.id)
        .where('owner_id', '=', owner)
        .where('state', '=', 'STARTED')
        .returning('id')
        .executeTakeFirst(),
    );
    // The owner wrote every column that can change while the task runs, so the task as written is
    // the one in hand: a follower waiting for it is answered with a copy, without reading it back.
    if (row !== undefined) this.#written(task.id, writtenCopy(task, now));
    return row !== undefined;
  }

  /**
   * Makes `owner` the owner of a running task (a replica taking over one whose owner died), saying so
   * in its history when the owner changes. Answers the task as it is now; undefined when it no longer
   * runs (or does not exist).
   */
  async takeOver(id: string, owner: string, now: Date): Promise<StoredTask | undefined> {
    return this.#change<StoredTask | undefined>(id, now, (task) => {
      if (task.state !== 'STARTED') return { answer: undefined };
      if (task.owner === owner) return { answer: task };
      const changed = { ...task, owner, history: [...task.history, reassigned(task, owner)] };
      return { write: changed, answer: changed };
    });
  }

  /**
   * A client's verdict on a task (clouddriver's `PATCH /{provider}/task/{id}` with `retry`): a running
   * task fails, and stops at its owner's next write; a failed one becomes retryable or not; a
   * completed one is left as it is. Answers the task as it is now; undefined when there is none.
   */
  async markFailed(
    id: string,
    retryable: boolean,
    status: string,
    now: Date,
  ): Promise<StoredTask | undefined> {
    return this.#change(id, now, (task) => {
      if (task.state === 'COMPLETED') return { answer: task };
      const history =
        task.state === 'STARTED' ? [...task.history, { phase: 'ORCHESTRATION', status }] : task.history;
      const failed: StoredTask = { ...task, state: 'FAILED', retryable, history };
      return { write: failed, answer: failed };
    });
  }

  /**
   * Runs a retryable failed task again as `owner` (clouddriver's restart and resume): STARTED again,
   * owned by `owner`, no longer retryable, its EXCEPTION result gone. `restarted` is false, and nothing changed, when it was not a
   * retryable failed task; undefined when there is none.
   */
  async restart(
    id: string,
    owner: string,
    now: Date,
  ): Promise<{ task: StoredTask; restarted: boolean } | undefined> {
    return this.#change<{ task: StoredTask; restarted: boolean }>(id, now, (task) => {
      if (task.state !== 'FAILED' || !task.retryable) return { answer: { task, restarted: false } };
      const history = [
        ...task.history,
        { phase: 'ORCHESTRATION', status: 'Re-initializing Orchestration Task (failure is retryable)' },
      ];
      if (task.owner !== owner) history.push(reassigned(task, owner));
      // The failure being retried is no longer the task's outcome (its history keeps it): a client
      // that finds an EXCEPTION among a completed task's results would report it.
      const resultObjects = task.resultObjects.filter((r) => !(isRecord(r) && r.type === 'EXCEPTION'));
      const started: StoredTask = {
        ...task,
        state: 'STARTED',
        retryable: false,
        owner,
        history,
        resultObjects,
      };
      return { write: started, answer: { task: started, restarted: true } };
    });
  }

  /**
   * Reads the task under a row lock and writes what `change` makes of it, if anything; answers what
   * `change` answers, or undefined when there is no such task.
   */
  async #change<T>(
    id: string,
    now: Date,
    change: (task: StoredTask) => { write?: StoredTask; answer: T },
  ): Promise<T | undefined> {
    const outcome = await writeInSequence(this.#db, async (tx) => {
      const row = await tx
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const { write, answer } = change(toTask(row));
      if (write === undefined) return { answer, written: undefined };
      const written = await tx
        .updateTable('tasks')
        .set({
          ...progressColumns(write),
          steps: JSON.stringify(write.steps),
          owner_id: write.owner,
          updated_at: now,
          watch_seq: nextWatchSeq,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { answer, written: toTask(written) };
    });
    if (outcome?.written !== undefined) this.#written(id, outcome.written);
    return outcome?.answer;
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

  /** The newest tasks first, without their steps. */
  async recentSummaries(limit: number): Promise<TaskSummary[]> {
    const rows = await this.#db
      .selectFrom('tasks')
      .select(SUMMARY_COLUMNS)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toSummary);
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
