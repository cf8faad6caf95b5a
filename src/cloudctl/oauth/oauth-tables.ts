// The OAuth tables: client credentials (the secret known by its hash only) and the access tokens
// issued to them (known by their hash only, with an expiry). A revoked client keeps its row, so its
// id is never handed out again and the list shows when it was revoked. Their row types and their
// migrations (0006_oauth; 0019_client_credentials: types, several roles, the bound agent, rotation).
import { type Kysely, type Migration, sql } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../store/index.ts';

/** OAuth client credentials: the secret is known by its SHA-256 only. */
export interface OAuthClientsTable {
  client_id: string;
  name: string;
  secret_hash: string;
  /** The first of `roles`: what replicas of the version before 0019 read during an upgrade. */
  role: string;
  /** `deployments` or `remoteNetworkAgent` (0019; earlier clients are `deployments`). */
  type: string;
  /** The roles the client acts with, a JSON array of one or more names (0019). */
  roles: Json;
  /** The agent a `remoteNetworkAgent` credential connects as; null for `deployments` (0019). */
  agent_id: string | null;
  created_by: string;
  created_at: Timestamp;
  /** When the secret was last replaced (0019). */
  rotated_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** Access tokens issued to OAuth clients, known by their SHA-256 only. */
export interface OAuthTokensTable {
  token_hash: string;
  client_id: string;
  issued_at: Timestamp;
  expires_at: Timestamp;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_tokens: OAuthTokensTable;
}

export const oauthMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('revoked_at', 'timestamptz')
      .execute();
    await db.schema
      .createTable('oauth_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.client_id'))
      .addColumn('issued_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .execute();
    // Expired tokens are deleted by client when a new one is issued.
    await db.schema
      .createIndex('oauth_tokens_client_idx')
      .on('oauth_tokens')
      .columns(['client_id', 'expires_at'])
      .execute();
  },
};

/**
 * Credentials people make (issue 39): a type, several roles, the agent a remote network agent
 * credential is bound to, and when its secret was rotated. Existing clients become `deployments`
 * credentials with their one role. Agents present a credential's secret by its hash, so the hash is
 * indexed: every agent call that is not from cloudctl's config looks it up.
 */
export const clientCredentialsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('oauth_clients')
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('deployments'))
      .addColumn('roles', 'jsonb')
      .addColumn('agent_id', 'text')
      .addColumn('rotated_at', 'timestamptz')
      .execute();
    await sql`update oauth_clients set roles = jsonb_build_array(role)`.execute(db);
    await db.schema
      .alterTable('oauth_clients')
      .alterColumn('roles', (c) => c.setNotNull())
      .execute();
    await db.schema
      .createIndex('oauth_clients_secret_idx')
      .on('oauth_clients')
      .column('secret_hash')
      .execute();
  },
};
