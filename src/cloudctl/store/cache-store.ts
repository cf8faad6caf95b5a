// The resource cache: applies what agents stream up (events, snapshots, bookmarks), answers resume
// version queries, and reads an account's current state. Nothing here knows about gRPC.
import { sql, type Transaction } from 'kysely';
import type { Database } from './database.ts';
import type { CloudctlDatabase } from './schema.ts';

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

type Tx = Transaction<CloudctlDatabase>;

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

export class CacheStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Applies the changes in order, all or nothing. */
  async apply(changes: readonly CacheChange[], now: Date): Promise<ApplyOutcome> {
    return this.#db.transaction().execute(async (tx) => {
      const outcome: ApplyOutcome = { upserted: 0, deleted: 0, unmatchedSnapshotEnds: [] };
      for (const change of changes) {
        switch (change.type) {
          case 'upsert': {
            const row = {
              api_version: change.version,
              resource_version: change.resourceVersion,
              body: change.body,
              snapshot_id: change.snapshotId,
              updated_at: now,
            };
            await tx
              .insertInto('resources')
              .values({
                account: change.account,
                api_group: change.group,
                kind: change.kind,
                namespace: change.namespace,
                name: change.name,
                ...row,
              })
              .onConflict((oc) =>
                oc.columns(['account', 'api_group', 'kind', 'namespace', 'name']).doUpdateSet(row),
              )
              .execute();
            outcome.upserted++;
            break;
          }
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
