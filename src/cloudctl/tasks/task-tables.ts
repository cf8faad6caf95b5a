// The tasks table: what a task must keep to be read, and carried on, after a restart; its row type
// and its migration (0003_tasks).
import type { Kysely, Migration } from 'kysely';
import type { Json, Timestamp, WatchSeqColumn } from '../store/index.ts';

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
