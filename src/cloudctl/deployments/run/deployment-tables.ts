// The deployment service's tables: one row per deployment (what it deploys, as submitted, and how far
// each target got), and its gates: each manual pause and each webhook callback a run waits for, so
// approvals and verdicts land in the database and a restarted (or another) cloudctl sees them.
// Their row types and their migration (0010_deployments).
import type { Kysely, Migration } from 'kysely';
import type { Json, Timestamp, WatchSeqColumn } from '../../store/index.ts';

export interface DeploymentsTable {
  id: string;
  application: string;
  status: string;
  created_by: string;
  /** The accounts its targets deploy to, for permission checks on reads. */
  accounts: Json;
  plan: Json;
  progress: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its number in the watch sequence (0014): a new one each time the row is written. */
  watch_seq: WatchSeqColumn;
}

export interface DeploymentGatesTable {
  id: string;
  deployment_id: string;
  step_key: string;
  kind: string;
  verdict: boolean | null;
  message: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Timestamp;
}

export interface DeploymentTables {
  deployments: DeploymentsTable;
  deployment_gates: DeploymentGatesTable;
}

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
