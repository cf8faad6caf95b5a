// The resource cache: applies what agents stream up (events, snapshots, bookmarks), answers resume
// version queries, and reads an account's current state. Nothing here knows about gRPC.
import { sql, type Transaction } from 'kysely';
import type { CloudctlDatabase, Database } from '../store/index.ts';

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

/** An object read from the cluster on demand, as it goes into the cache. */
export interface RefreshedObject extends ObjectKey {
  version: string;
  resourceVersion: string;
  /** The object as JSON text. */
  body: string;
}

type Tx = Transaction<CloudctlDatabase>;

/** An object as just written to the cache. */
export interface StoredObject extends ObjectKey {
  version: string;
  /** The object as JSON text. */
  body: string;
}

/**
 * Derives what other features read from objects as they are stored, in the cache write's own
 * transaction (the read model's index). Removals need no call: derived rows go with their object.
 */
export interface CacheIndexer {
  stored(tx: Transaction<CloudctlDatabase>, objects: readonly StoredObject[]): Promise<void>;
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

/** Rows per statement: 10 parameters each stays far below PostgreSQL's 65535 bind parameters. */
const UPSERT_CHUNK = 500;

/** Code-point order, the same in every database and locale. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const objectKey = (c: ObjectKey) => `${c.account}\0${c.group}\0${c.kind}\0${c.namespace}\0${c.name}`;

/**
 * Writes the upserts as if one after another. One statement may not touch a row twice, so a key
 * seen more than once keeps only its last state, which is what applying them in order leaves.
 */
async function upsertAll(
  tx: Tx,
  upserts: readonly Upsert[],
  now: Date,
  indexer: CacheIndexer | undefined,
): Promise<void> {
  if (upserts.length === 0) return;
  const latest = new Map<string, Upsert>();
  for (const upsert of upserts) {
    const key = objectKey(upsert);
    latest.delete(key);
    latest.set(key, upsert);
  }
  const rows = [...latest.values()].map((c) => ({
    account: c.account,
    api_group: c.group,
    kind: c.kind,
    namespace: c.namespace,
    name: c.name,
    api_version: c.version,
    resource_version: c.resourceVersion,
    body: c.body,
    snapshot_id: c.snapshotId,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
    const chunk = rows.slice(i, i + UPSERT_CHUNK);
    await tx
      .insertInto('resources')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['account', 'api_group', 'kind', 'namespace', 'name']).doUpdateSet((eb) => ({
          api_version: eb.ref('excluded.api_version'),
          resource_version: eb.ref('excluded.resource_version'),
          body: eb.ref('excluded.body'),
          snapshot_id: eb.ref('excluded.snapshot_id'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
    await indexer?.stored(tx, chunk.map(storedObject));
  }
}

function storedObject(row: {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  name: string;
  api_version: string;
  body: string;
}): StoredObject {
  return {
    account: row.account,
    group: row.api_group,
    kind: row.kind,
    namespace: row.namespace,
    name: row.name,
    version: row.api_version,
    body: row.body,
  };
}

export class CacheStore {
  readonly #db: Database;
  readonly #indexer: CacheIndexer | undefined;

  constructor(db: Database, indexer?: CacheIndexer) {
    this.#db = db;
    this.#indexer = indexer;
  }

  /** Applies the changes in order, all or nothing. */
  async apply(changes: readonly CacheChange[], now: Date): Promise<ApplyOutcome> {
    return this.#db.transaction().execute(async (tx) => {
      const outcome: ApplyOutcome = { upserted: 0, deleted: 0, unmatchedSnapshotEnds: [] };
      // Consecutive upserts are written as multi-row statements: one statement per object made an
      // initial sync of 50k objects spend most of its time in the database round trips.
      const pending: Upsert[] = [];
      const flush = async () => {
        await upsertAll(tx, pending, now, this.#indexer);
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
          case 'delete': {
            const result = await tx
              .deleteFrom('resources')
              .where('account', '=', change.account)
              .where('api_group', '=', change.group)
              .where('kind', '=', change.kind)
              .where('namespace', '=', change.namespace)
              .where('name', '=', change.name)
              .executeTakeFirst();
            outcome.deleted += Number(result.numDeletedRows);
            break;
          }
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
            break;
          case 'snapshotEnd': {
            const { scope } = change;
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
            let stale = tx
              .deleteFrom('resources')
              .where('account', '=', scope.account)
              .where('api_group', '=', scope.group)
              .where('kind', '=', scope.kind)
              .where(sql<boolean>`snapshot_id is distinct from ${change.snapshotId}`);
            if (scope.namespace !== '') stale = stale.where('namespace', '=', scope.namespace);
            const result = await stale.executeTakeFirst();
            outcome.deleted += Number(result.numDeletedRows);
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
    return this.#db.transaction().execute(async (tx) => {
      const stored = await this.#refreshIn(tx, object, now);
      if (stored) await this.#indexer?.stored(tx, [object]);
      return stored;
    });
  }

  async #refreshIn(tx: Tx, object: RefreshedObject, now: Date): Promise<boolean> {
    const result = await tx
      .insertInto('resources')
      .values({
        account: object.account,
        api_group: object.group,
        kind: object.kind,
        namespace: object.namespace,
        name: object.name,
        api_version: object.version,
        resource_version: object.resourceVersion,
        body: object.body,
        snapshot_id: null,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['account', 'api_group', 'kind', 'namespace', 'name'])
          .doUpdateSet((eb) => ({
            api_version: eb.ref('excluded.api_version'),
            resource_version: eb.ref('excluded.resource_version'),
            body: eb.ref('excluded.body'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          // Resource versions are opaque, but every API server we know of numbers them from etcd's
          // revision; where both are numbers the greater is the newer. Others are simply replaced.
          .where(
            sql<boolean>`case when resources.resource_version ~ '^[0-9]+$' and excluded.resource_version ~ '^[0-9]+$'
              then resources.resource_version::numeric <= excluded.resource_version::numeric else true end`,
          ),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /**
   * Removes an object the cluster no longer has; an object stored after `since` is kept (the watch
   * saw it created again after the read that missed it). False when nothing was removed.
   */
  async evict(key: ObjectKey, since: Date): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('resources')
      .where('account', '=', key.account)
      .where('api_group', '=', key.group)
      .where('kind', '=', key.kind)
      .where('namespace', '=', key.namespace)
      .where('name', '=', key.name)
      .where('updated_at', '<=', since)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
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
    return rows.map((row) => ({
      group: row.api_group,
      version: row.api_version,
      kind: row.kind,
      namespace: row.namespace,
      name: row.name,
      resourceVersion: row.resource_version,
      body: row.body,
      updatedAt: row.updated_at,
    }));
  }
}
