// The deployment service's tables: one row per deployment (what it deploys, as submitted, and how far
// each target got), and its gates: each manual pause and each webhook callback a run waits for, so
// approvals and verdicts land in the database and a restarted (or another) cloudctl sees them.
import type { Kysely, Migration } from 'kysely';

export const deploymentsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('deployments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('application', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('accounts', 'jsonb', (c) => c.notNull())
      .addColumn('plan', 'jsonb', (c) => c.notNull())
      .addColumn('progress', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('deployments_status_idx').on('deployments').column('status').execute();
    await db.schema.createIndex('deployments_created_idx').on('deployments').column('created_at').execute();
    await db.schema
      .createTable('deployment_gates')
      // A callback's id is the SHA-256 of its secret part; an approval's is `<deployment>/<step>`.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('deployment_id', 'text', (c) => c.notNull().references('deployments.id'))
      .addColumn('step_key', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('verdict', 'boolean')
      .addColumn('message', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('deployment_gates_deployment_idx')
      .on('deployment_gates')
      .columns(['deployment_id', 'step_key'])
      .execute();
  },
};
