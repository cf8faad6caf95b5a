// Schema migrations, in code so both databases (PGlite and PostgreSQL) run exactly the same ones.
// Append new migrations; never edit one that has shipped.
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { credentialsMigration } from '../credentials/index.ts';
import { deploymentsMigration } from '../deployments/index.ts';
import { dynamicAccountsMigration } from '../dynamic-accounts/index.ts';
import { oauthMigration } from '../oauth/index.ts';
import { readModelMigration } from '../read-model/index.ts';
import { replicaMigration } from '../replicas/index.ts';
import { tasksMigration } from '../tasks/index.ts';

const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('replica_count', 'integer', (c) => c.notNull())
      .addColumn('connected', 'boolean', (c) => c.notNull())
      .addColumn('connected_at', 'timestamptz', (c) => c.notNull())
      .addColumn('last_heartbeat_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('accounts')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
      .addColumn('permissions', 'jsonb', (c) => c.notNull())
      .addColumn('api_server_host', 'text', (c) => c.notNull())
      .addColumn('kubernetes_version', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_message', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('resources')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('api_version', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('resource_version', 'text', (c) => c.notNull())
      .addColumn('body', 'jsonb', (c) => c.notNull())
      .addColumn('snapshot_id', 'text')
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      // The API version is not part of the key: the same object seen through another version is one row.
      .addPrimaryKeyConstraint('resources_pk', ['account', 'api_group', 'kind', 'namespace', 'name'])
      .execute();
    await db.schema
      .createTable('resume_versions')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('resource_version', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('resume_versions_pk', ['account', 'api_group', 'kind', 'namespace'])
      .execute();
    await db.schema
      .createTable('open_snapshots')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('snapshot_id', 'text', (c) => c.notNull())
      .addColumn('started_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('open_snapshots_pk', ['account', 'api_group', 'kind', 'namespace'])
      .execute();
    await db.schema
      .createTable('operations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'jsonb', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('result', 'jsonb')
      .addColumn('error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('deadline', 'timestamptz', (c) => c.notNull())
      .addColumn('reported_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('operations_account_idx').on('operations').column('account').execute();
  },
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return {
      '0001_initial': initial,
      '0002_credentials': credentialsMigration,
      '0003_tasks': tasksMigration,
      '0004_read_model': readModelMigration,
      '0005_dynamic_accounts': dynamicAccountsMigration,
      '0006_oauth': oauthMigration,
      // 0007 and 0008 were kept for the deployment service, which landed after 0009: a database
      // already at 0009 would refuse an earlier migration, so its tables are 0010.
      '0009_replicas': replicaMigration,
      '0010_deployments': deploymentsMigration,
    };
  },
};
