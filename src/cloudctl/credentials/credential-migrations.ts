// The credentials tables: the current definition of each account defined in cloudctl, and every
// revision of it (append-only; a delete is a revision too). Names compare byte-wise (collation "C")
// so paging by name gives the same order on PGlite and on any PostgreSQL server, whatever its locale.
import { type Kysely, type Migration, sql } from 'kysely';

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
