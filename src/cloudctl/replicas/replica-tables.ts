// The replicas of cloudctl sharing one PostgreSQL, the agent sessions each holds (how a replica that
// gets work for an account finds the one whose stream reaches the account's agent), and the leases on
// work with one owner. A replica's rows mean nothing once its `seen_at` is older than the replica lease.
// Their row types and their migration (0009_replicas).
import type { Kysely, Migration } from 'kysely';
import type { Json, Timestamp } from '../store/index.ts';

export interface ReplicasTable {
  id: string;
  started_at: Timestamp;
  seen_at: Timestamp;
}

export interface ReplicaSessionsTable {
  session_id: string;
  replica_id: string;
  agent_id: string;
  connected_at: Timestamp;
  result_retry_window_ms: number;
  zone_id: string;
  dynamic_accounts: boolean;
  /** [{ name, static }]. */
  accounts: Json;
}

export interface LeasesTable {
  kind: string;
  key: string;
  owner: string;
  expires_at: Timestamp;
}

export interface ReplicaTables {
  replicas: ReplicasTable;
  replica_sessions: ReplicaSessionsTable;
  leases: LeasesTable;
}

export const replicaMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('replicas')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('started_at', 'timestamptz', (c) => c.notNull())
      .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('replica_sessions')
      .addColumn('session_id', 'text', (c) => c.primaryKey())
      .addColumn('replica_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('connected_at', 'timestamptz', (c) => c.notNull())
      .addColumn('result_retry_window_ms', 'integer', (c) => c.notNull())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      // Whether the agent takes dynamic accounts (hello's dynamic_accounts.enabled).
      .addColumn('dynamic_accounts', 'boolean', (c) => c.notNull())
      // [{ name, static }]: the accounts the session serves, and whether from the agent's own config.
      .addColumn('accounts', 'jsonb', (c) => c.notNull())
      .execute();
    // Work with one owner at a time (a task, a deployment run, a webhook wait): held while renewed,
    // taken over by another replica once it expires.
    await db.schema
      .createTable('leases')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('leases_pk', ['kind', 'key'])
      .execute();
    await db.schema
      .createIndex('replica_sessions_replica_idx')
      .on('replica_sessions')
      .column('replica_id')
      .execute();
  },
};
