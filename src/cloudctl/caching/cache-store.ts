// The resource cache: applies what agents stream up (events, snapshots, bookmarks), answers resume
// version queries, and reads an account's current state. Nothing here knows about gRPC.
import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import { type Drift, driftSchema } from '../../contract/index.ts';
import { errorCode } from '../../lib/is-record.ts';
import { copyFromStdin, holdWatchSequence, WatchSignal, writeInSequence } from '../store/index.ts';
import type { CacheTables, ResourcesTable } from './cache-tables.ts';

/** One kind in one namespace of one account; namespace '' is every namespace (or cluster scope). */
export interface WatchScope {
  account: string;
  group: string;
  kind: string;
  namespace: string;
}

export interface ObjectKey {
  account: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export type CacheChange =
  | (ObjectKey & {
      type: 'upsert';
      version: string;
      resourceVersion: string;
      /** The object as JSON text. */
      body: string;
      snapshotId: string | null;
      /** What other field managers changed since cloudctl deployed it, as JSON text; absent: none. */
      drift?: string | null;
    })
  | (ObjectKey & { type: 'delete' })
  | { type: 'snapshotBegin'; scope: WatchScope; snapshotId: string }
  | { type: 'snapshotEnd'; scope: WatchScope; snapshotId: string; resourceVersion: string }
  | { type: 'bookmark'; scope: WatchScope; resourceVersion: string };

export interface ApplyOutcome {
  upserted: number;
  deleted: number;
  /** Snapshot ends whose begin was never seen (or was superseded): nothing was deleted for them. */
  unmatchedSnapshotEnds: WatchScope[];
}

export interface ResumeVersion {
  scope: WatchScope;
  resourceVersion: string;
  updatedAt: Date;
}

export interface CachedResource {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  resourceVersion: string;
  body: unknown;
  updatedAt: Date;
  /** For an object cloudctl deployed: what other field managers changed since; null for none. */
  drift: Drift | null;
}

/** A kind cached for an account: how many objects, through which version (none without objects). */
export interface CachedKind {
  account: string;
  group: string;
  kind: string;
  /** The version the objects were read through; undefined for a kind watched with no object yet. */
  version: string | undefined;
  /** Whether the objects live in namespaces; undefined without objects to tell. */
  namespaced: boolean | undefined;
  count: number;
}

/**
 * How far an account's syncs have got: scopes (kind, namespace) listed to the end at least once, and
 * scopes whose list is running now (a first sync, or a relist after 410 or a restart).
 */
export interface SyncProgress {
  synced: number;
  listing: number;
  /** When the oldest list running now began; null when none runs. */
  listingSince: Date | null;
}

/** An object read from the cluster on demand, as it goes into the cache. */
export interface RefreshedObject extends ObjectKey {
  version: string;
  resourceVersion: string;
  /** The object as JSON text. */
  body: string;
}

type Tx = Transaction<CacheTables>;

/** An object as it is about to be written to the cache. */
export interface StoredObject extends ObjectKey {
  version: string;
  /** The object as JSON text. */
  body: string;
}

/** A column an indexer adds to each `resources` row; the indexer's feature migrates it. */
export interface IndexColumn {
  name: string;
  type: 'text' | 'integer' | 'float8' | 'jsonb';
}

/** A derived value: JSON columns take JSON text. */
export type IndexValue = string | number | null;

/**
 * Derives what other features read from each object as it is stored (the read model's index):
 * the values go into the object's own row, in the same multi-row statement, so a derived value
 * never outlives its object nor lags behind it, and removals need nothing more.
 */
export interface CacheIndexer {
  readonly columns: readonly IndexColumn[];
  /** The columns a removal keeps in the watch's log (what a watcher is told of a removed object). */
  readonly keptOnRemoval: readonly string[];
  /** The columns' values for the object, in `columns` order. */
  derive(object: StoredObject): readonly IndexValue[];
}

function scopeColumns(scope: WatchScope) {
  return { account: scope.account, api_group: scope.group, kind: scope.kind, namespace: scope.namespace };
}

async function setResumeVersion(tx: Tx, scope: WatchScope, resourceVersion: string, now: Date) {
  await tx
    .insertInto('resume_versions')
    .values({ ...scopeColumns(scope), resource_version: resourceVersion, updated_at: now })
    .onConflict((oc) =>
      oc
        .columns(['account', 'api_group', 'kind', 'namespace'])
        .doUpdateSet({ resource_version: resourceVersion, updated_at: now }),
    )
    .execute();
}

type Upsert = Extract<CacheChange, { type: 'upsert' }>;

/** Code-point order, the same in every database and locale. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const objectKey = (c: ObjectKey) => `${c.account}\0${c.group}\0${c.kind}\0${c.namespace}\0${c.name}`;

const KEY_COLUMNS = ['account', 'api_group', 'kind', 'namespace', 'name'] as const;
const BASE_COLUMNS: readonly IndexColumn[] = [
  ...KEY_COLUMNS.map((name) => ({ name, type: 'text' as const })),
  { name: 'api_version', type: 'text' },
  { name: 'resource_version', type: 'text' },
  { name: 'body', type: 'text' },
  { name: 'snapshot_id', type: 'text' },
  { name: 'drift', type: 'text' },
];

/** A row to write: the object, its resource version, its snapshot and its drift (null: none). */
interface ResourceRow {
  object: StoredObject;
  resourceVersion: string;
  snapshotId: string | null;
  drift: string | null;
}

/** The row's values, in the order of `BASE_COLUMNS` and then the indexer's columns. */
function rowValues(
  { object, resourceVersion, snapshotId, drift }: ResourceRow,
  indexer: CacheIndexer | undefined,
) {
  const values: IndexValue[] = [
    object.account,
    object.group,
    object.kind,
    object.namespace,
    object.name,
    object.version,
    resourceVersion,
    object.body,
    snapshotId,
    drift,
  ];
  for (const value of indexer?.derive(object) ?? []) values.push(value ?? null);
  return values;
}

const names = (cs: readonly string[]) => sql.join(cs.map((name) => sql.ref(name)));

/**
 * Where a drift starts, in the watch sequence: a row whose drift differs from the one it replaces
 * takes the number its incoming row drew (a drift event, watch/); the same drift again keeps its
 * number, so a relist or a status update is no new event; no drift, no number.
 */
const DRIFT_SEQ = sql`drift_seq = case when excluded.drift is null then null
  when excluded.drift is not distinct from resources.drift then resources.drift_seq
  else excluded.drift_seq end`;

/**
 * What a row written over an existing one sets: every column but the key (and, from a read on
 * demand, `fromWatch` false, the snapshot and the drift, which only the watch brings). With
 * `onlyNewer`, an existing row is replaced only by an equal or newer resource version (an on-demand
 * read racing the watch).
 */
function onConflict(columns: readonly IndexColumn[], options: { onlyNewer: boolean; fromWatch: boolean }) {
  const updated = columns.filter(
    (c) =>
      !(KEY_COLUMNS as readonly string[]).includes(c.name) &&
      (options.fromWatch || (c.name !== 'snapshot_id' && c.name !== 'drift')),
  );
  const set = sql.join([
    ...updated.map((c) => sql`${sql.ref(c.name)} = ${sql.ref(`excluded.${c.name}`)}`),
    sql`updated_at = excluded.updated_at`,
    // A row written over takes a new number: watchers follow it as a change (store/watch-sequence.ts).
    sql`watch_seq = nextval('watch_seq')`,
    ...(options.fromWatch ? [DRIFT_SEQ] : []),
  ]);
  // Resource versions are opaque, but every API server we know of numbers them from etcd's
  // revision; where both are numbers the greater is the newer. Others are simply replaced.
  const newer = options.onlyNewer
    ? sql`where case when resources.resource_version ~ '^[0-9]+$' and excluded.resource_version ~ '^[0-9]+$'
        then resources.resource_version::numeric <= excluded.resource_version::numeric else true end`
    : sql``;
  return sql`on conflict (${names(KEY_COLUMNS)}) do update set ${set} ${newer}`;
}

/** Every column a row of `resources` is written with: the base ones, then the indexer's. */
const columnsOf = (indexer: CacheIndexer | undefined): readonly IndexColumn[] => [
  ...BASE_COLUMNS,
  ...(indexer?.columns ?? []),
];

/** One object read on demand, as one row (each value cast to its column's type), derived columns included. */
function writeRow(
  db: Kysely<CacheTables> | Tx,
  row: ResourceRow,
  now: Date,
  indexer: CacheIndexer | undefined,
) {
  const columns = columnsOf(indexer);
  const values = rowValues(row, indexer);
  return sql`insert into resources (${names(columns.map((c) => c.name))}, updated_at)
    values (${sql.join(columns.map((c, i) => sql`${values[i] ?? null}::${sql.raw(c.type)}`))}, ${now}::timestamptz)
    ${onConflict(columns, { onlyNewer: true, fromWatch: false })}`.execute(db);
}

/**
 * Deletes the rows `where` selects and logs each removal with the next watch number, in one statement:
 * a removed object has no row left to carry its number. The count is of rows removed.
 */
async function removeWhere(
  db: Kysely<CacheTables> | Tx,
  where: RawBuilder<boolean>,
  kept: readonly string[],
  now: Date,
): Promise<number> {
  const keptJson =
    kept.length === 0
      ? sql`'{}'::jsonb`
      : sql`jsonb_build_object(${sql.join(kept.map((c) => sql`${sql.lit(c)}, ${sql.ref(c)}`))})`;
  const result = await sql`with gone as (
      delete from resources where ${where}
      returning account, api_group, kind, namespace, name, ${keptJson} as kept)
    insert into watch_log (seq, account, api_group, kind, namespace, name, kept, at)
    select nextval('watch_seq'), account, api_group, kind, namespace, name, kept, ${now}::timestamptz from gone`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

/** The row of one object, by its key. */
const keyIs = (key: ObjectKey) =>
  sql<boolean>`account = ${key.account} and api_group = ${key.group} and kind = ${key.kind}
    and namespace = ${key.namespace} and name = ${key.name}`;

/** Where a run of rows lands first: a table of the session, emptied at each commit. */
const INCOMING = 'resources_incoming';

/** PostgreSQL's unique_violation: a row with the key is there already. */
const UNIQUE_VIOLATION = '23505';

/**
 * Rows of a relist into a scope that held no rows when it began: COPY them into `resources` itself,
 * under a savepoint, and say whether that worked. Most are new (a first sync), and this writes each
 * row once, where the upsert writes it into the temporary table, then again. A key already there
 * (an on-demand read, or another agent's relist, meanwhile) fails the COPY with a unique violation:
 * the savepoint is rolled back, and the caller upserts instead. The watch sequence's column takes
 * its default (the next number); rows with a drift are not taken (their drift needs a number too).
 */
async function copyNew(tx: Tx, all: readonly string[], rows: ReadonlyArray<readonly IndexValue[]>) {
  await sql`savepoint fresh_rows`.execute(tx);
  try {
    await tx.executeQuery(copyFromStdin('resources', all, rows));
  } catch (error) {
    if (errorCode(error) !== UNIQUE_VIOLATION) throw error;
    await sql`rollback to savepoint fresh_rows`.execute(tx);
    return false;
  }
  await sql`release savepoint fresh_rows`.execute(tx);
  return true;
}

/**
 * Writes the upserts as if one after another. One statement may not touch a row twice, so a key
 * seen more than once keeps only its last state, which is what applying them in order leaves. The
 * rows go by COPY into a temporary table and from there into `resources` in one statement: COPY's
 * text needs little escaping and no parse of array literals (store/copy-from-stdin.ts). With `fresh`
 * (every upsert belongs to a relist of a scope that was empty, none with a drift), they are first
 * COPYed into `resources` directly (`copyNew`).
 */
async function upsertAll(
  tx: Tx,
  upserts: readonly Upsert[],
  now: Date,
  indexer: CacheIndexer | undefined,
  fresh: boolean,
): Promise<void> {
  if (upserts.length === 0) return;
  const latest = new Map<string, Upsert>();
  for (const upsert of upserts) {
    const key = objectKey(upsert);
    latest.delete(key);
    latest.set(key, upsert);
  }
  const columns = columnsOf(indexer);
  const at = now.toISOString();
  const rows = [...latest.values()].map((c) => {
    const values = rowValues(
      { object: c, resourceVersion: c.resourceVersion, snapshotId: c.snapshotId, drift: c.drift ?? null },
      indexer,
    );
    values.push(at);
    return values;
  });
  const all = [...columns.map((c) => c.name), 'updated_at'];
  if (fresh && (await copyNew(tx, all, rows))) return;
  await sql`create temp table if not exists ${sql.table(INCOMING)} (like resources) on commit delete rows`.execute(
    tx,
  );
  await tx.executeQuery(copyFromStdin(INCOMING, all, rows));
  // A drifting object draws a number for its drift; DRIFT_SEQ keeps it only where the drift is new.
  await sql`insert into resources (${names(all)}, drift_seq)
    select ${names(all)}, case when drift is not null then nextval('watch_seq') end from ${sql.table(INCOMING)}
    ${onConflict(columns, { onlyNewer: false, fromWatch: true })}`.execute(tx);
  await sql`truncate ${sql.table(INCOMING)}`.execute(tx);
}

/** Keys per query of `objects`: five parameters each, well under PostgreSQL's 65 535. */
const OBJECTS_PER_READ = 1000;

/** A row of `resources` as callers read it. */
function cachedResource(row: Selectable<ResourcesTable>): CachedResource {
  return {
    group: row.api_group,
    version: row.api_version,
    kind: row.kind,
    namespace: row.namespace,
    name: row.name,
    resourceVersion: row.resource_version,
    body: JSON.parse(row.body),
    updatedAt: row.updated_at,
    drift: row.drift === null ? null : storedDrift(row.drift),
  };
}

/** A stored drift; one that no longer reads as one (never written so) is none. */
function storedDrift(text: string): Drift | null {
  const parsed = driftSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** At most this many relists are remembered as into empty scopes; past it all are forgotten. */
const FRESH_SNAPSHOTS_MAX = 10_000;

export class CacheStore {
  readonly #db: Kysely<CacheTables>;
  readonly #indexer: CacheIndexer | undefined;
  readonly #signal: WatchSignal;
  /**
   * Relists begun, in this process, into a scope that held no rows: their objects are COPYed as new
   * (`copyNew`). Only a hint: a wrong one costs a rolled-back COPY, and a replica that did not see
   * the begin upserts as always. Ended relists are dropped, and abandoned ones when it grows past
   * FRESH_SNAPSHOTS_MAX.
   */
  readonly #fresh = new Set<string>();

  constructor(db: Kysely<CacheTables>, indexer?: CacheIndexer, signal = new WatchSignal()) {
    this.#db = db;
    this.#indexer = indexer;
    this.#signal = signal;
  }

  get #kept(): readonly string[] {
    return this.#indexer?.keptOnRemoval ?? [];
  }

  /** Applies the changes in order, all or nothing. */
  async apply(changes: readonly CacheChange[], now: Date): Promise<ApplyOutcome> {
    const outcome = await this.#applyInOrder(changes, now);
    this.#signal.changed();
    return outcome;
  }

  #applyInOrder(changes: readonly CacheChange[], now: Date): Promise<ApplyOutcome> {
    return this.#db.transaction().execute(async (tx) => {
      await holdWatchSequence(tx);
      const outcome: ApplyOutcome = { upserted: 0, deleted: 0, unmatchedSnapshotEnds: [] };
      // Consecutive upserts are written as multi-row statements: one statement per object made an
      // initial sync of 50k objects spend most of its time in the database round trips.
      const pending: Upsert[] = [];
      const flush = async () => {
        const fresh = pending.every(
          (u) => u.snapshotId !== null && this.#fresh.has(u.snapshotId) && (u.drift ?? null) === null,
        );
        await upsertAll(tx, pending, now, this.#indexer, fresh);
        outcome.upserted += pending.length;
        pending.length = 0;
      };
      for (const change of changes) {
        if (change.type === 'upsert') {
          pending.push(change);
          continue;
        }
        await flush();
        switch (change.type) {
          case 'delete':
            outcome.deleted += await removeWhere(tx, keyIs(change), this.#kept, now);
            break;
          case 'snapshotBegin':
            await tx
              .insertInto('open_snapshots')
              .values({ ...scopeColumns(change.scope), snapshot_id: change.snapshotId, started_at: now })
              .onConflict((oc) =>
                oc
                  .columns(['account', 'api_group', 'kind', 'namespace'])
                  .doUpdateSet({ snapshot_id: change.snapshotId, started_at: now }),
              )
              .execute();
            if (await this.#isEmpty(tx, change.scope)) {
              if (this.#fresh.size >= FRESH_SNAPSHOTS_MAX) this.#fresh.clear();
              this.#fresh.add(change.snapshotId);
            }
            break;
          case 'snapshotEnd': {
            const { scope } = change;
            this.#fresh.delete(change.snapshotId);
            const open = await tx
              .deleteFrom('open_snapshots')
              .where('account', '=', scope.account)
              .where('api_group', '=', scope.group)
              .where('kind', '=', scope.kind)
              .where('namespace', '=', scope.namespace)
              .where('snapshot_id', '=', change.snapshotId)
              .executeTakeFirst();
            if (Number(open.numDeletedRows) === 0) {
              // Deleting on an end we cannot match to its begin could empty a scope that was never relisted.
              outcome.unmatchedSnapshotEnds.push(scope);
              break;
            }
            const inNamespace = scope.namespace === '' ? sql`true` : sql`namespace = ${scope.namespace}`;
            const stale = sql<boolean>`account = ${scope.account} and api_group = ${scope.group}
              and kind = ${scope.kind} and ${inNamespace} and snapshot_id is distinct from ${change.snapshotId}`;
            outcome.deleted += await removeWhere(tx, stale, this.#kept, now);
            await setResumeVersion(tx, scope, change.resourceVersion, now);
            break;
          }
          case 'bookmark':
            await setResumeVersion(tx, change.scope, change.resourceVersion, now);
            break;
        }
      }
      await flush();
      return outcome;
    });
  }

  /** Whether the scope holds no rows (namespace '': in no namespace, nor cluster-scoped). */
  async #isEmpty(tx: Tx, scope: WatchScope): Promise<boolean> {
    let query = tx
      .selectFrom('resources')
      .select(sql<number>`1`.as('one'))
      .where('account', '=', scope.account)
      .where('api_group', '=', scope.group)
      .where('kind', '=', scope.kind);
    if (scope.namespace !== '') query = query.where('namespace', '=', scope.namespace);
    return (await query.limit(1).executeTakeFirst()) === undefined;
  }

  /**
   * The last resource version per scope of the given accounts, with when it was stored; versions
   * stored more than `maxAgeMs` before `now` are left out (0 keeps all).
   */
  async resumeVersions(accounts: readonly string[], maxAgeMs: number, now: Date): Promise<ResumeVersion[]> {
    if (accounts.length === 0) return [];
    let query = this.#db.selectFrom('resume_versions').selectAll().where('account', 'in', accounts);
    if (maxAgeMs > 0) query = query.where('updated_at', '>=', new Date(now.getTime() - maxAgeMs));
    const rows = await query
      .orderBy('account')
      .orderBy('api_group')
      .orderBy('kind')
      .orderBy('namespace')
      .execute();
    return rows.map((row) => ({
      scope: { account: row.account, group: row.api_group, kind: row.kind, namespace: row.namespace },
      resourceVersion: row.resource_version,
      updatedAt: row.updated_at,
    }));
  }

  /**
   * Stores an object read on demand, unless the watch stored a newer version of it meanwhile (then
   * false). The row keeps the snapshot it belongs to: a relist in progress still owns the object,
   * and its end must not delete it for lacking the snapshot's mark.
   */
  async refresh(object: RefreshedObject, now: Date): Promise<boolean> {
    const result = await writeInSequence(this.#db, (tx) =>
      writeRow(
        tx,
        { object, resourceVersion: object.resourceVersion, snapshotId: null, drift: null },
        now,
        this.#indexer,
      ),
    );
    this.#signal.changed();
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  /**
   * Removes an object the cluster no longer has; an object stored after `since` is kept (the watch
   * saw it created again after the read that missed it). False when nothing was removed.
   */
  async evict(key: ObjectKey, since: Date): Promise<boolean> {
    const removed = await writeInSequence(this.#db, (tx) =>
      removeWhere(
        tx,
        sql<boolean>`${keyIs(key)} and updated_at <= ${since}::timestamptz`,
        this.#kept,
        new Date(),
      ),
    );
    this.#signal.changed();
    return removed > 0;
  }

  /**
   * Forgets everything cached of the accounts: their objects (and with them the read model's rows,
   * which are the objects' own columns), resume versions and open relists. An agent that takes one of
   * them later lists it afresh rather than resuming from another cluster's versions.
   */
  async forgetAccounts(accounts: readonly string[]): Promise<number> {
    if (accounts.length === 0) return 0;
    const removed = await writeInSequence(this.#db, async (tx) => {
      const inAccounts = sql<boolean>`account in (${sql.join(accounts)})`;
      const objects = await removeWhere(tx, inAccounts, this.#kept, new Date());
      await tx.deleteFrom('resume_versions').where('account', 'in', accounts).execute();
      await tx.deleteFrom('open_snapshots').where('account', 'in', accounts).execute();
      return objects;
    });
    this.#signal.changed();
    return removed;
  }

  /**
   * The kinds cached for the accounts, with object counts, counted by the database without reading
   * a body; a kind watched without objects (a stored resume version only) counts 0. Rows of one kind
   * share one version: the agent watches a kind through one version.
   */
  async kinds(accounts: readonly string[]): Promise<CachedKind[]> {
    if (accounts.length === 0) return [];
    const counted = await this.#db
      .selectFrom('resources')
      .select((eb) => [
        'account',
        'api_group',
        'kind',
        eb.fn.max('api_version').as('version'),
        sql<boolean>`bool_or(namespace <> '')`.as('namespaced'),
        eb.fn.countAll<string>().as('n'),
      ])
      .where('account', 'in', accounts)
      .groupBy(['account', 'api_group', 'kind'])
      .execute();
    const watched = await this.#db
      .selectFrom('resume_versions')
      .select(['account', 'api_group', 'kind'])
      .distinct()
      .where('account', 'in', accounts)
      .execute();
    const byKey = new Map<string, CachedKind>();
    const keyOf = (row: { account: string; api_group: string; kind: string }) =>
      `${row.account}\0${row.api_group}\0${row.kind}`;
    for (const row of watched) {
      byKey.set(keyOf(row), {
        account: row.account,
        group: row.api_group,
        kind: row.kind,
        version: undefined,
        namespaced: undefined,
        count: 0,
      });
    }
    for (const row of counted) {
      byKey.set(keyOf(row), {
        account: row.account,
        group: row.api_group,
        kind: row.kind,
        version: row.version,
        namespaced: row.namespaced,
        count: Number(row.n),
      });
    }
    return [...byKey.values()].sort(
      (a, b) => compare(a.account, b.account) || compare(a.group, b.group) || compare(a.kind, b.kind),
    );
  }

  /** When each account last completed a sync step: its newest snapshot end or bookmark stored. */
  async lastSync(accounts: readonly string[]): Promise<Map<string, Date>> {
    if (accounts.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('resume_versions')
      .select((eb) => ['account', eb.fn.max('updated_at').as('at')])
      .where('account', 'in', accounts)
      .groupBy('account')
      .execute();
    return new Map(rows.map((row) => [row.account, new Date(row.at)]));
  }

  /** Per account with a sync begun: scopes synced and scopes listing now, from two counts, no bodies. */
  async syncProgress(accounts: readonly string[]): Promise<Map<string, SyncProgress>> {
    if (accounts.length === 0) return new Map();
    const [synced, listing] = await Promise.all([
      this.#db
        .selectFrom('resume_versions')
        .select((eb) => ['account', eb.fn.countAll<string>().as('n')])
        .where('account', 'in', accounts)
        .groupBy('account')
        .execute(),
      this.#db
        .selectFrom('open_snapshots')
        .select((eb) => ['account', eb.fn.countAll<string>().as('n'), eb.fn.min('started_at').as('since')])
        .where('account', 'in', accounts)
        .groupBy('account')
        .execute(),
    ]);
    const progress = new Map<string, SyncProgress>();
    for (const row of synced)
      progress.set(row.account, { synced: Number(row.n), listing: 0, listingSince: null });
    for (const row of listing) {
      const before = progress.get(row.account);
      progress.set(row.account, {
        synced: before?.synced ?? 0,
        listing: Number(row.n),
        listingSince: new Date(row.since),
      });
    }
    return progress;
  }

  /** The account's namespaces: those cached Namespace objects name, and those objects live in. */
  async namespaces(account: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('resources')
      .select('namespace as name')
      .distinct()
      .where('account', '=', account)
      .where('namespace', '<>', '')
      .union(
        this.#db
          .selectFrom('resources')
          .select('name')
          .where('account', '=', account)
          .where('api_group', '=', '')
          .where('kind', '=', 'Namespace'),
      )
      .execute();
    return rows.map((row) => row.name).sort(compare);
  }

  /** How many objects of the account are cached, optionally of one kind; cheaper than reading them. */
  async count(account: string, filter: { group?: string; kind?: string } = {}): Promise<number> {
    let query = this.#db
      .selectFrom('resources')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account', '=', account);
    if (filter.group !== undefined) query = query.where('api_group', '=', filter.group);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * One cached object of the account by group, kind and name, from the first of `namespaces` that
   * holds it (a read that names a namespace also finds a cluster-scoped object under '').
   */
  async object(
    account: string,
    type: { group: string; kind: string },
    namespaces: readonly string[],
    name: string,
  ): Promise<CachedResource | undefined> {
    if (namespaces.length === 0) return undefined;
    const rows = await this.#db
      .selectFrom('resources')
      .selectAll()
      .where('account', '=', account)
      .where('api_group', '=', type.group)
      .where('kind', '=', type.kind)
      .where('namespace', 'in', namespaces)
      .where('name', '=', name)
      .execute();
    const row = namespaces.map((ns) => rows.find((r) => r.namespace === ns)).find((r) => r !== undefined);
    return row === undefined ? undefined : cachedResource(row);
  }

  /**
   * The cached objects of these keys, read a thousand keys per query, each with its account; keys
   * not cached are absent. A page that shows thousands of objects reads them in a few queries, not
   * one round trip per object (bench/status-page.ts).
   */
  async objects(keys: readonly ObjectKey[]): Promise<Array<CachedResource & { account: string }>> {
    const found: Array<CachedResource & { account: string }> = [];
    for (let at = 0; at < keys.length; at += OBJECTS_PER_READ) {
      const wanted = keys
        .slice(at, at + OBJECTS_PER_READ)
        .map((k) => sql`(${k.account}, ${k.group}, ${k.kind}, ${k.namespace}, ${k.name})`);
      const { rows } = await sql<Selectable<ResourcesTable>>`select r.* from resources r
        join (values ${sql.join(wanted)}) as k (account, api_group, kind, namespace, name)
        using (account, api_group, kind, namespace, name)`.execute(this.#db);
      for (const row of rows) found.push({ ...cachedResource(row), account: row.account });
    }
    return found;
  }

  /** Every cached object of the account, optionally of one kind, ordered by kind, namespace, name. */
  async resources(
    account: string,
    filter: { group?: string; kind?: string } = {},
  ): Promise<CachedResource[]> {
    let query = this.#db.selectFrom('resources').selectAll().where('account', '=', account);
    if (filter.group !== undefined) query = query.where('api_group', '=', filter.group);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    const rows = await query
      .orderBy('api_group')
      .orderBy('kind')
      .orderBy('namespace')
      .orderBy('name')
      .execute();
    return rows.map(cachedResource);
  }
}
