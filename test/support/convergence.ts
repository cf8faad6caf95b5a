// Does what cloudctl stores for an account match what the cluster holds? Both sides are read as
// lists of (kind, namespace, name, version) and compared by key; a difference names each object that
// is lost (in the cluster, not stored), a ghost (stored, gone from the cluster) or stale (stored with
// another version than the cluster's). `awaitConvergence` polls until the sides agree and says how
// long that took, so crash tests report the figure the promise is about.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { CloudctlDatabase } from '../../src/cloudctl/index.ts';
import type { ApiClient } from '../cluster/index.ts';

export interface ObjectVersion {
  kind: string;
  namespace: string;
  name: string;
  /** What the source says identifies the object's state: its resourceVersion, or a label's value. */
  version: string;
}

/** Reads one side; called again on every poll. */
export type ObjectSource = () => Promise<ObjectVersion[]>;

export interface Drift {
  lost: ObjectVersion[];
  ghost: ObjectVersion[];
  stale: Array<{ stored: ObjectVersion; cluster: ObjectVersion }>;
}

// Kinds are compared without case: the database keeps the API's `ConfigMap`, the read API the
// Spinnaker spelling `configMap`.
const keyOf = (o: ObjectVersion) => `${o.kind.toLowerCase()} ${o.namespace}/${o.name}`;

export function driftBetween(cluster: readonly ObjectVersion[], stored: readonly ObjectVersion[]): Drift {
  const storedByKey = new Map(stored.map((o) => [keyOf(o), o]));
  const clusterKeys = new Set(cluster.map(keyOf));
  const drift: Drift = { lost: [], ghost: [], stale: [] };
  for (const object of cluster) {
    const copy = storedByKey.get(keyOf(object));
    if (copy === undefined) drift.lost.push(object);
    else if (copy.version !== object.version) drift.stale.push({ stored: copy, cluster: object });
  }
  drift.ghost = stored.filter((o) => !clusterKeys.has(keyOf(o)));
  return drift;
}

export const converged = (d: Drift) => d.lost.length + d.ghost.length + d.stale.length === 0;

/** Every differing object by name, so a failure says which objects were lost, not only how many. */
export function describeDrift(d: Drift): string {
  const list = (objects: readonly string[]) => (objects.length === 0 ? 'none' : objects.join(', '));
  return [
    `lost (in the cluster, not stored) ${d.lost.length}: ${list(d.lost.map(keyOf))}`,
    `ghost (stored, gone from the cluster) ${d.ghost.length}: ${list(d.ghost.map(keyOf))}`,
    `stale (stored version differs) ${d.stale.length}: ${list(
      d.stale.map((s) => `${keyOf(s.cluster)} stored ${s.stored.version}, cluster ${s.cluster.version}`),
    )}`,
  ].join('\n');
}

export class NotConvergedError extends Error {
  readonly drift: Drift;

  constructor(drift: Drift, limitMs: number) {
    super(`cloudctl's store did not match the cluster within ${limitMs} ms:\n${describeDrift(drift)}`);
    this.name = 'NotConvergedError';
    this.drift = drift;
  }
}

/**
 * Polls both sides until they agree; resolves with the milliseconds from the call to the first poll
 * that agreed, or rejects with the last drift. A source that throws (cloudctl restarting) counts as
 * not converged yet.
 */
export async function awaitConvergence(
  sides: { cluster: ObjectSource; stored: ObjectSource },
  options: { limitMs: number; intervalMs?: number },
): Promise<number> {
  const start = Date.now();
  let last: Drift | undefined;
  for (;;) {
    // The store is read after the cluster: an object the store already has but the cluster list
    // missed would otherwise show as a ghost for one poll.
    const cluster = await sides.cluster();
    const stored = await sides.stored().catch(() => undefined);
    if (stored !== undefined) {
      last = driftBetween(cluster, stored);
      if (converged(last)) return Date.now() - start;
    }
    if (Date.now() - start > options.limitMs) {
      throw new NotConvergedError(last ?? { lost: cluster, ghost: [], stale: [] }, options.limitMs);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

type Metadata = {
  name: string;
  namespace?: string;
  resourceVersion: string;
  labels?: Record<string, string>;
};

/**
 * The objects at list paths of the API server (`/api/v1/namespaces/x/configmaps`), each with the
 * version `versionOf` picks from its metadata (resourceVersion unless told otherwise); `keep` filters.
 */
export function clusterSource(
  client: ApiClient,
  lists: ReadonlyArray<{ kind: string; path: string }>,
  options: { versionOf?: (meta: Metadata) => string; keep?: (meta: Metadata) => boolean } = {},
): ObjectSource {
  const versionOf = options.versionOf ?? ((meta) => meta.resourceVersion);
  return async () => {
    const objects: ObjectVersion[] = [];
    for (const { kind, path } of lists) {
      const response = await client.request('GET', path);
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text}`);
      const { items } = response.json as { items: Array<{ metadata: Metadata }> };
      for (const { metadata } of items) {
        if (options.keep !== undefined && !options.keep(metadata)) continue;
        objects.push({
          kind,
          namespace: metadata.namespace ?? '',
          name: metadata.name,
          version: versionOf(metadata),
        });
      }
    }
    return objects;
  };
}

/** cloudctl's cache rows for the account in the given namespaces, read from its database. */
export function databaseSource(
  db: Kysely<CloudctlDatabase>,
  account: string,
  namespaces: readonly string[],
): ObjectSource {
  return async () =>
    (
      await db
        .selectFrom('resources')
        .select(['kind', 'namespace', 'name', 'resource_version'])
        .where('account', '=', account)
        .where('namespace', 'in', namespaces)
        .execute()
    ).map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name, version: r.resource_version }));
}

/**
 * What cloudctl's read API shows of an application's objects in the account (GET
 * /applications/{app}/rawResources), with the value of `label` as the version. The read API does not
 * show resourceVersions, so a test that polls it while cloudctl runs on embedded PGlite (one process
 * per data directory) writes a revision label with every change and compares that; the exact
 * resourceVersion check reads the database once cloudctl has stopped.
 */
export function readApiSource(options: {
  url: string;
  token: string;
  application: string;
  account: string;
  label: string;
}): ObjectSource {
  return async () => {
    const response = await fetch(`${options.url}/applications/${options.application}/rawResources`, {
      headers: { authorization: `Bearer ${options.token}` },
    });
    // No application yet is an empty store, not an error.
    if (response.status === 404) return [];
    if (response.status !== 200) throw new Error(`rawResources: ${response.status} ${await response.text()}`);
    const resources = (await response.json()) as Array<{
      account: string;
      kind: string;
      namespace: string;
      displayName: string;
      labels: Record<string, string>;
    }>;
    return resources
      .filter((r) => r.account === options.account)
      .map((r) => ({
        kind: r.kind,
        namespace: r.namespace,
        name: r.displayName,
        version: r.labels[options.label] ?? '',
      }));
  };
}
