// The tasks table: what a task must keep to be read, and carried on, after a restart.
import type { Kysely, Migration } from 'kysely';

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
