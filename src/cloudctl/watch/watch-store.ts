// The watch's reads and upkeep in the database: the horizon and the window's floor, objects and
// removals by watch number, and the pruning of removals older than the window.
import { type Kysely, sql } from 'kysely';
import { watchHorizon } from '../store/index.ts';
import type { WatchTables } from './watch-tables.ts';

/** Which rows a read takes: a range of numbers, and (for a client catching up) only some accounts. */
export interface WatchRange {
  after: number;
  upTo: number;
  /** Undefined: every account. */
  accounts?: readonly string[];
  limit: number;
}

/** An object's row as a watch reads it: its key, body and the read model's columns. */
export interface ObjectRow {
  seq: string;
  account: string;
  api_group: string;
  api_version: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string;
  body: string;
  uid: string | null;
  spinnaker_kind: string | null;
  role: string | null;
  application: string | null;
  cluster: string | null;
  stack: string | null;
  detail: string | null;
  sequence: number | null;
  owner_kind: string | null;
  owner_name: string | null;
  labels: unknown;
  summary: unknown;
  created_time: number | null;
}

export interface RemovalRow {
  seq: string;
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  name: string;
  kept: unknown;
}

/** Rows numbered in the range (of the accounts, where it says so). */
function inRange(range: WatchRange, column: 'watch_seq' | 'seq') {
  const accounts =
    range.accounts === undefined
      ? sql`true`
      : range.accounts.length === 0
        ? sql`false`
        : sql`account in (${sql.join(range.accounts)})`;
  return sql`${sql.ref(column)} > ${range.after} and ${sql.ref(column)} <= ${range.upTo} and ${accounts}`;
}

export class WatchStore {
  readonly #db: Kysely<WatchTables>;

  constructor(db: Kysely<WatchTables>) {
    this.#db = db;
  }

  horizon(): Promise<number> {
    return watchHorizon(this.#db);
  }

  async floor(): Promise<number> {
    const row = await this.#db
      .selectFrom('watch_window')
      .select('floor')
      .where('id', '=', 1)
      .executeTakeFirst();
    return Number(row?.floor ?? 0);
  }

  async objects(range: WatchRange): Promise<ObjectRow[]> {
    const { rows } =
      await sql<ObjectRow>`select watch_seq::text as seq, account, api_group, api_version, kind,
        namespace, name, resource_version, body, uid, spinnaker_kind, role, application, cluster, stack, detail,
        sequence, owner_kind, owner_name, labels, summary, created_time
      from resources where ${inRange(range, 'watch_seq')} order by watch_seq limit ${sql.lit(range.limit)}`.execute(
        this.#db,
      );
    return rows;
  }

  async removals(range: WatchRange): Promise<RemovalRow[]> {
    const { rows } =
      await sql<RemovalRow>`select seq::text as seq, account, api_group, kind, namespace, name, kept
      from watch_log where ${inRange(range, 'seq')} order by seq limit ${sql.lit(range.limit)}`.execute(
        this.#db,
      );
    return rows;
  }

  /** Drops removals logged before `before` and raises the floor past them; how many were dropped. */
  async prune(before: Date): Promise<number> {
    const { rows } = await sql<{ dropped: string }>`with gone as (
        delete from watch_log where at < ${before}::timestamptz returning seq),
      raised as (
        update watch_window set floor = greatest(floor, (select coalesce(max(seq), 0) from gone)) where id = 1)
      select count(*)::text as dropped from gone`.execute(this.#db);
    return Number(rows[0]?.dropped ?? 0);
  }
}
