// The watch's reads and upkeep in the database: the horizon and the window's floor, objects and
// removals by watch number, and the pruning of removals older than the window.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { watchHorizon } from '../store/index.ts';
import type { WatchLogTable, WatchTables } from './watch-tables.ts';

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
  /** The drift as the cache stores it (JSON text); null for none. */
  drift: string | null;
}

/** An object's drift as a watch reads it: numbered where it started, with its key and moniker. */
export interface DriftRow {
  seq: string;
  account: string;
  api_group: string;
  api_version: string;
  kind: string;
  namespace: string;
  name: string;
  spinnaker_kind: string | null;
  application: string | null;
  cluster: string | null;
  stack: string | null;
  detail: string | null;
  sequence: number | null;
  drift: string;
}

/** A logged removal as a watch reads it: its number as text, `kept` completed from the owner's row. */
export type RemovalRow = Omit<WatchLogTable, 'at'>;

/** Rows of `r` numbered in the range (of the accounts, where it says so). */
function inRange(range: WatchRange, column: 'watch_seq' | 'seq' | 'drift_seq', table: 'r.') {
  const ref = sql.ref(`${table}${column}`);
  const accounts =
    range.accounts === undefined
      ? sql`true`
      : range.accounts.length === 0
        ? sql`false`
        : sql`r.account in (${sql.join(range.accounts)})`;
  return sql`${ref} > ${range.after} and ${ref} <= ${range.upTo} and ${accounts}`;
}

/** `o`: the owner of a row of `r` with no application of its own, when it has one (by its Spinnaker kind). */
function ownerOf(
  application: RawBuilder<unknown>,
  ownerKind: RawBuilder<unknown>,
  ownerName: RawBuilder<unknown>,
) {
  return sql`left join lateral (
      select o.application, o.cluster, o.sequence from resources o
      where ${application} is null and ${ownerName} is not null and o.account = r.account
        and o.namespace = r.namespace and o.spinnaker_kind = ${ownerKind} and o.name = ${ownerName}
        and o.role is not null
      limit 1) o on true`;
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
    // A pod made from a template without a moniker belongs to its server group's application and
    // cluster, as the read model's instances do: the owner's row says which.
    const { rows } =
      await sql<ObjectRow>`select r.watch_seq::text as seq, r.account, r.api_group, r.api_version,
        r.kind, r.namespace, r.name, r.resource_version, r.body, r.uid, r.spinnaker_kind, r.role,
        coalesce(r.application, o.application) as application, coalesce(r.cluster, o.cluster) as cluster,
        r.stack, r.detail, coalesce(r.sequence, o.sequence) as sequence, r.owner_kind, r.owner_name, r.labels,
        r.summary, r.created_time, r.drift
      from resources r ${ownerOf(sql`r.application`, sql`r.owner_kind`, sql`r.owner_name`)}
      where ${inRange(range, 'watch_seq', 'r.')} order by r.watch_seq limit ${sql.lit(range.limit)}`.execute(
        this.#db,
      );
    return rows;
  }

  /** Drifts that started in the range: the objects whose `drift_seq` it holds (caching/cache-store.ts). */
  async drifts(range: WatchRange): Promise<DriftRow[]> {
    const { rows } =
      await sql<DriftRow>`select r.drift_seq::text as seq, r.account, r.api_group, r.api_version, r.kind,
        r.namespace, r.name, r.spinnaker_kind, coalesce(r.application, o.application) as application,
        coalesce(r.cluster, o.cluster) as cluster, r.stack, r.detail, coalesce(r.sequence, o.sequence) as sequence,
        r.drift
      from resources r ${ownerOf(sql`r.application`, sql`r.owner_kind`, sql`r.owner_name`)}
      where ${inRange(range, 'drift_seq', 'r.')} order by r.drift_seq limit ${sql.lit(range.limit)}`.execute(
        this.#db,
      );
    return rows;
  }

  async removals(range: WatchRange): Promise<RemovalRow[]> {
    const { rows } =
      await sql<RemovalRow>`select r.seq::text as seq, r.account, r.api_group, r.kind, r.namespace,
        r.name, r.kept || jsonb_strip_nulls(jsonb_build_object('application', o.application, 'cluster', o.cluster,
          'sequence', o.sequence)) as kept
      from watch_log r ${ownerOf(sql`r.kept->>'application'`, sql`r.kept->>'owner_kind'`, sql`r.kept->>'owner_name'`)}
      where ${inRange(range, 'seq', 'r.')} order by r.seq limit ${sql.lit(range.limit)}`.execute(this.#db);
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
