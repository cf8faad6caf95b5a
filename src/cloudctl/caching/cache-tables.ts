// The cache's tables: the objects agents stream (one row per object, whatever version it was read
// through), the resource version each watch scope resumes from, and the relists begun and not yet
// ended. Their row types, and their part of the first migration (0001_initial). The read model adds
// its index columns to `resources` in its own migration.
import { type Generated, type Kysely, type Migration, sql } from 'kysely';
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
  /**
   * For an object cloudctl deployed, what other field managers changed since (0018): the agent's
   * drift summary as JSON text (contract `Drift`); null when none.
   */
  drift: string | null;
  /** The watch number of the drift's start (0018): a drift event; null without a drift. */
  drift_seq: Generated<string | null>;
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

/**
 * 0018: an object's drift (what other field managers changed since cloudctl deployed it) and the
 * watch number of its start, for the drift events of GET /watch. The number is indexed where set:
 * few objects drift, and a watch reads them by number.
 */
export const resourceDriftMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table resources add column drift text, add column drift_seq bigint`.execute(db);
    await sql`create index resources_drift_seq_idx on resources (drift_seq) where drift_seq is not null`.execute(
      db,
    );
  },
};
