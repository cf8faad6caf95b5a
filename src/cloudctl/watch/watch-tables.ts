// The watch's tables (0014_watch_sequence): the sequence, a `watch_seq` column on each table whose rows
// a watch streams (objects, tasks, deployments; the default takes the next number, writers take a new
// one on update), the log of removals (a removed object has no row left to carry its number), and the
// window: removals older than it are dropped, and a client whose position is below its floor reads again.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Json, Timestamp } from '../store/index.ts';

export interface WatchLogTable {
  seq: string;
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  name: string;
  /** What the object's row held that a removal event shows: its moniker and Spinnaker kind. */
  kept: Json;
  at: Timestamp;
}

export interface WatchWindowTable {
  /** Always 1: one row. */
  id: number;
  /** Every removal numbered at or below it has been dropped. */
  floor: string;
}

export interface WatchTables {
  watch_log: WatchLogTable;
  watch_window: WatchWindowTable;
}

/** Tables whose rows a watch streams, each numbered in its own `watch_seq` column. */
export const WATCHED_TABLES = ['resources', 'tasks', 'deployments'] as const;

export const watchMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create sequence watch_seq`.execute(db);
    for (const table of WATCHED_TABLES) {
      await sql`alter table ${sql.table(table)} add column watch_seq bigint default nextval('watch_seq')`.execute(
        db,
      );
      await sql`create index ${sql.id(`${table}_watch_seq_idx`)} on ${sql.table(table)} (watch_seq)`.execute(
        db,
      );
    }
    await db.schema
      .createTable('watch_log')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kept', 'jsonb', (c) => c.notNull())
      .addColumn('at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('watch_log_at_idx').on('watch_log').column('at').execute();
    await db.schema
      .createTable('watch_window')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('floor', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into watch_window (id, floor) values (1, 0)`.execute(db);
  },
};
