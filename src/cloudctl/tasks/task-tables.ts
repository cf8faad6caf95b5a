// The tasks table: what a task must keep to be read, and carried on, after a restart; its row type
// and its migrations (0003_tasks; 0015_task_owner: the replica running a task, and whether a failed
// one may be restarted).
import type { Kysely, Migration } from 'kysely';
import type { Json, Timestamp, WatchSeqColumn } from '../store/index.ts';

/** The owner of tasks when cloudctl runs alone on its embedded database: the same across restarts. */
export const SINGLE_OWNER = 'cloudctl';

export interface TasksTable {
  id: string;
  /** The client's clientRequestId: a retry with it finds this task instead of starting another. */
  request_id: string | null;
  user_name: string;
  /** string[] */
  accounts: Json;
  /** TaskStep[] (tasks/task-store.ts) */
  steps: Json;
  next_step: number;
  /** STARTED, COMPLETED or FAILED */
  state: string;
  /**
   * The replica that runs the task, or ran it last (0015): its writes are made only while it is the
   * owner, so a restart on another replica stops the first one at its next write.
   */
  owner_id: string;
  /** A FAILED task that `POST .../restart` or `:resume` may run again (0015). */
  retryable: boolean;
  history: Json;
  result_objects: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its number in the watch sequence (0014): a new one each time the row is written. */
  watch_seq: WatchSeqColumn;
}

export interface TaskTables {
  tasks: TasksTable;
}

export const tasksMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('request_id', 'text', (c) => c.unique())
      .addColumn('user_name', 'text', (c) => c.notNull())
      .addColumn('accounts', 'jsonb', (c) => c.notNull())
      .addColumn('steps', 'jsonb', (c) => c.notNull())
      .addColumn('next_step', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('history', 'jsonb', (c) => c.notNull())
      .addColumn('result_objects', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('tasks_state_idx').on('tasks').column('state').execute();
    await db.schema.createIndex('tasks_created_idx').on('tasks').column('created_at').execute();
  },
};

/**
 * The owner and retryability of every task. Tasks stored before this migration were written by the
 * only process there was then: they get the owner name of a single cloudctl, and none is retryable.
 */
export const taskOwnerMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('tasks')
      .addColumn('owner_id', 'text', (c) => c.notNull().defaultTo(SINGLE_OWNER))
      .execute();
    await db.schema
      .alterTable('tasks')
      .addColumn('retryable', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
