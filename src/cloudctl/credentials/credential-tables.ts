// The credentials tables: the current definition of each account defined in cloudctl, and every
// revision of it (append-only; a delete is a revision too). Names compare byte-wise (collation "C")
// so paging by name gives the same order on PGlite and on any PostgreSQL server, whatever its locale.
// Their row types and their migrations (0002_credentials; 0011_credentials_config_file, which marks the
// accounts declared in cloudctl's config file).
import { type Kysely, type Migration, sql } from 'kysely';
import type { Json, NullableJson, Timestamp } from '../store/index.ts';

/** Accounts defined in cloudctl: the current definition of each. */
export interface CredentialsTable {
  name: string;
  /** The definition's type discriminator: orchestrator. */
  type: string;
  definition: Json;
  /** {read: string[], write: string[]}, derived from the definition. */
  permissions: Json;
  /** The version of the newest revision. */
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The cloudctl config file that declares the account; null for one defined over the API. */
  config_file: string | null;
}

/** Every write of a credentials definition, deletes included; rows are only ever inserted. */
export interface CredentialRevisionsTable {
  name: string;
  version: number;
  deleted: boolean;
  /** Null for a delete. */
  definition: NullableJson;
  permissions: Json;
  created_at: Timestamp;
}

export interface CredentialTables {
  credentials: CredentialsTable;
  credential_revisions: CredentialRevisionsTable;
}

export const credentialsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('credentials')
      .addColumn('name', sql`text collate "C"`, (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('definition', 'jsonb', (c) => c.notNull())
      // Derived from the definition when written, so permission checks never read the body.
      .addColumn('permissions', 'jsonb', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('credentials_type_name_idx')
      .on('credentials')
      .columns(['type', 'name'])
      .execute();
    await db.schema
      .createTable('credential_revisions')
      .addColumn('name', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('deleted', 'boolean', (c) => c.notNull())
      // Null for a delete, as in the API we mirror.
      .addColumn('definition', 'jsonb')
      // For a delete, the permissions of what was deleted: they guard the history afterwards.
      .addColumn('permissions', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('credential_revisions_pk', ['name', 'version'])
      .execute();
  },
};

/** Accounts declared in cloudctl's config file are kept with the API's, marked with the file. */
export const credentialsConfigFileMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('credentials').addColumn('config_file', 'text').execute();
  },
};
