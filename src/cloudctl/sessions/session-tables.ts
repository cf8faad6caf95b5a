// The agents' durable record: each agent that ever registered, and the accounts it serves (its own
// config's). Their row types, and their part of the first migration (0001_initial, made with the
// cache's and the operations' tables in one step).
import type { Kysely } from 'kysely';
import type { Json, Timestamp } from '../store/index.ts';

export interface AgentsTable {
  id: string;
  version: string;
  zone_id: string;
  replica_count: number;
  connected: boolean;
  connected_at: Timestamp;
  last_heartbeat_at: Timestamp;
}

export interface AccountsTable {
  name: string;
  agent_id: string;
  /** {read: string[], write: string[]} */
  permissions: Json;
  api_server_host: string;
  kubernetes_version: string;
  /** UNKNOWN until the agent reports ACTIVE or FAILED. */
  status: string;
  status_message: string;
  updated_at: Timestamp;
}

export interface SessionTables {
  agents: AgentsTable;
  accounts: AccountsTable;
}

/** 0001_initial, first part: shipped; never edit it. */
export async function createSessionTables(db: Kysely<unknown>): Promise<void> {
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
}
