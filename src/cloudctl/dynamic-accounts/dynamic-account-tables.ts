// The dynamic accounts tables: each account registered for migration (its zone, its cluster
// configuration override, its state and the last assignment message), and which agent holds it now
// (caching or for operations only, and what the agent said). Names compare byte-wise (collation "C"),
// as the credentials they refer to do. Their row types and their migrations (0005_dynamic_accounts;
// 0016_dynamic_account_cluster: the cluster a holder reached, as it reported it).
import { type Kysely, type Migration, sql } from 'kysely';
import type { Timestamp } from '../store/index.ts';

/** An account registered for migration to agents (POST /vendor/accounts) and its state. */
export interface DynamicAccountsTable {
  name: string;
  zone_id: string | null;
  /** A path or secret reference that replaces the definition's orchConfigFile; null: the definition's. */
  orch_config_file: string | null;
  state: string;
  last_assignment_msg: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A cloudctl-defined account held by an agent: sent on a session, caching or not, as reported. */
export interface DynamicAccountAgentsTable {
  account: string;
  agent_id: string;
  session_id: string;
  caching: boolean;
  /** SENT until the agent reports ACTIVE or FAILED. */
  status: string;
  message: string;
  /** The API server (host:port) and version the agent reported with ACTIVE; '' before (0016). */
  api_server_host: string;
  kubernetes_version: string;
  updated_at: Timestamp;
}

export interface DynamicAccountTables {
  dynamic_accounts: DynamicAccountsTable;
  dynamic_account_agents: DynamicAccountAgentsTable;
}

export const dynamicAccountsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('dynamic_accounts')
      .addColumn('name', sql`text collate "C"`, (c) => c.primaryKey())
      .addColumn('zone_id', 'text')
      .addColumn('orch_config_file', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('last_assignment_msg', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('dynamic_account_agents')
      .addColumn('account', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      // The session it was sent on: when that session ends, the agent no longer holds it.
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('caching', 'boolean', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('dynamic_account_agents_pk', ['account', 'agent_id'])
      .execute();
  },
};

/** 0016: the cluster each holder reached, for the account's kubeHost and kubeVersion. */
export const dynamicAccountClusterMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('dynamic_account_agents')
      .addColumn('api_server_host', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('kubernetes_version', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
