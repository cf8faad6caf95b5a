// The OAuth tables: client credentials (the secret known by its hash only) and the access tokens
// issued to them (known by their hash only, with an expiry). A revoked client keeps its row, so its
// id is never handed out again and the list shows when it was revoked. Their row types and their
// migration (0006_oauth).
import type { Kysely, Migration } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../store/index.ts';

/** OAuth client credentials: the secret is known by its SHA-256 only. */
export interface OAuthClientsTable {
  client_id: string;
  name: string;
  secret_hash: string;
  role: string;
  created_by: string;
  created_at: Timestamp;
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
