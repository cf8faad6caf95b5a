// Reads one manifest for GET /manifests/...: the object from the cache when it holds it, else from the
// cluster through the account's agent (a kind the account does not cache, or an object the watch
// has not brought yet: pipelines read what they have just deployed), then its Events when asked.
// While no agent serves the account, the stored copy answers alone, with a warning saying so: Orca's
// "wait for manifest to stabilize" and Deck keep reading what cloudctl holds.

import type { Drift } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { type CacheStore, type KindResolver, spinnakerKind, splitManifestName } from '../caching/index.ts';
import { driftSentences } from '../drift/index.ts';
import { HttpError } from '../http/index.ts';
import { podContainerMetrics } from '../read-model/index.ts';
import { type LiveReads, liveEvents, liveObject } from './live-reads.ts';
import { type ManifestRecord, manifestRecord, type ObjectType, storedCopyWarning } from './manifest-view.ts';

export interface ManifestReaderDeps {
  cache: Pick<CacheStore, 'object' | 'kinds'>;
  kinds: Pick<KindResolver, 'resolve'>;
  operations: LiveReads;
}

export interface ManifestQuery {
  account: string;
  /** The namespace; '' for a cluster-scoped object. */
  location: string;
  /** "<kind> <name>". */
  name: string;
  includeEvents: boolean;
}

const apiGroup = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const apiVersionOnly = (apiVersion: string) =>
  apiVersion.includes('/') ? (apiVersion.split('/')[1] ?? '') : apiVersion;

/** The kind a Spinnaker name spells, as the account knows it; 404 when neither built in nor cached. */
export async function resolveType(
  kinds: ManifestReaderDeps['kinds'],
  account: string,
  kindName: string,
): Promise<ObjectType & { apiVersion: string }> {
  const resolved = await kinds.resolve(account, kindName);
  if (resolved === undefined) {
    throw new HttpError(
      'NOT_FOUND',
      `unknown kind '${kindName}': not a built-in kind, and no object of it is cached for account ${account}`,
    );
  }
  return {
    apiVersion: resolved.apiVersion,
    group: apiGroup(resolved.apiVersion),
    version: apiVersionOnly(resolved.apiVersion),
    kind: resolved.kind,
    spinnakerKind: spinnakerKind(resolved.apiVersion, resolved.kind),
  };
}

/**
 * The object, and when it comes from the store rather than the cluster, when the store last wrote it
 * and its drift (the watch brings it; a live read has none to tell).
 */
interface Found {
  object: Record<string, unknown>;
  storedAt?: Date;
  drift?: Drift | null;
}

async function findObject(
  deps: ManifestReaderDeps,
  query: ManifestQuery,
  type: ObjectType & { apiVersion: string },
  name: string,
  agentAway: boolean,
): Promise<Found | undefined> {
  // A cluster-scoped object is cached under '' whatever namespace the path names.
  const namespaces = query.location === '' ? [''] : [query.location, ''];
  const cached = await deps.cache.object(query.account, type, namespaces, name);
  if (cached !== undefined && isRecord(cached.body))
    return { object: cached.body, storedAt: cached.updatedAt, drift: cached.drift };
  // With no agent to ask, the store's answer stands for a kind it watches for the account; of a kind
  // it does not watch it knows nothing, and the live read below says no agent can answer (503).
  if (agentAway && (await watchesKind(deps, query.account, type))) return undefined;
  const object = await liveObject(deps.operations, query.account, {
    apiVersion: type.apiVersion,
    kind: type.kind,
    ...(query.location === '' ? {} : { namespace: query.location }),
    name,
  });
  return object === undefined ? undefined : { object };
}

async function watchesKind(deps: ManifestReaderDeps, account: string, type: ObjectType): Promise<boolean> {
  const watched = await deps.cache.kinds([account]);
  return watched.some((k) => k.group === type.group && k.kind === type.kind);
}

/** The manifest; 404 when the cluster has no such object (or, with the agent away, the store has none). */
export async function readManifest(deps: ManifestReaderDeps, query: ManifestQuery): Promise<ManifestRecord> {
  const { kind, name } = splitManifestName(query.name);
  const type = await resolveType(deps.kinds, query.account, kind);
  const agentAway = !(await deps.operations.serves(query.account));
  const found = await findObject(deps, query, type, name, agentAway);
  if (found === undefined) {
    throw new HttpError(
      'NOT_FOUND',
      `Manifest (account: ${query.account}, location: ${query.location}, name: ${query.name}) not found`,
    );
  }
  const { object, storedAt, drift = null } = found;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  const uid = typeof metadata.uid === 'string' ? metadata.uid : '';
  const { events, warnings } =
    agentAway && storedAt !== undefined
      ? { events: [], warnings: [storedCopyWarning(storedAt)] }
      : query.includeEvents && uid !== ''
        ? await eventsOrWarning(deps, query.account, { uid, namespace })
        : NO_EVENTS;
  // clouddriver reads a pod's metrics (kubectl top) only with its events; ours are the store's latest.
  const metrics =
    query.includeEvents && type.group === '' && type.kind === 'Pod'
      ? await podContainerMetrics(deps.cache, { account: query.account, namespace, name })
      : [];
  const parts = { account: query.account, type, namespace, name, object, events, metrics };
  const drifted = driftSentences(drift).map((message) => ({ type: 'drift', message }));
  return { ...manifestRecord(parts), warnings: [...warnings, ...drifted], drift };
}

const NO_EVENTS = { events: [], warnings: [] };

/**
 * The object's Events; when the agent cannot read them (none connected, or the cluster failed), none
 * and a warning saying why: the cached object and its status still answer, which is what a
 * pipeline waiting for it to stabilize needs.
 */
async function eventsOrWarning(
  deps: ManifestReaderDeps,
  account: string,
  involved: { uid: string; namespace: string },
): Promise<Pick<ManifestRecord, 'events' | 'warnings'>> {
  try {
    return { events: await liveEvents(deps.operations, account, involved), warnings: [] };
  } catch (error) {
    if (
      !(error instanceof HttpError) ||
      (error.code !== 'AGENT_UNAVAILABLE' && error.code !== 'AGENT_FAILED')
    )
      throw error;
    return { events: [], warnings: [{ type: 'events', message: `events not read: ${error.message}` }] };
  }
}
