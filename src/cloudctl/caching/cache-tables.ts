// The cache's tables: the objects agents stream (one row per object, whatever version it was read
// through), the resource version each watch scope resumes from, and the relists begun and not yet
// ended. Their row types, and their part of the first migration (0001_initial). The read model adds
// its index columns to `resources` in its own migration.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Timestamp, WatchSeqColumn } from '../store/index.ts';

export interface ResourcesTable {
  account: string;
  api_group: string;
  api_version: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string;
  /** The object's JSON as the agent sent it (text since 0012: see `cacheBodyTextMigration`). */
  body: string;
  /** The snapshot that last carried this object; null when only watch events touched it since. */
  snapshot_id: string | null;
  updated_at: Timestamp;
  /** Its number in the watch sequence (0014): a new one each time the row is written. */
  watch_seq: WatchSeqColumn;
}

export interface ResumeVersionsTable {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  resource_version: string;
  updated_at: Timestamp;
}

/** Relists begun and not yet ended, one per watch scope. */
export interface OpenSnapshotsTable {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  snapshot_id: string;
  started_at: Timestamp;
}

export interface CacheTables {
  resources: ResourcesTable;
  resume_versions: ResumeVersionsTable;
  open_snapshots: OpenSnapshotsTable;
}

/** 0001_initial, second part: shipped; never edit it. */
export async function createCacheTables(db: Kysely<unknown>): Promise<void> {
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
}

/**
 * 0012: bodies are stored as the text the agent sent, not `jsonb`. Nothing queries inside a body
 * (the read model's columns are derived at ingest), and reads parse it in cloudctl either way (the
 * drivers parse `jsonb` with JSON.parse too), so `jsonb` only cost PostgreSQL a parse and a binary
 * build of every object it stored. cloudctl checks each body is one JSON object before storing it.
 */
export const cacheBodyTextMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table resources alter column body type text using body::text`.execute(db);
  },
};
