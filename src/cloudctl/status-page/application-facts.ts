// What the applications view shows of one application, as a team thinks of it: per account and
// cluster, its managers (Deployments) and versions (server groups) newest first, each with its replicas,
// images, status and whether a load balancer sends it traffic, and each version's pods. The structure
// and traffic come from the read model exactly as GET /applications/{name}/serverGroups answers them;
// the status (clouddriver's rules and messages, as GET /manifests computes it) and the figures come
// from the objects as cached. Only accounts the user may read; `writable` says where actions apply.
// A pod's CPU and memory are its latest metrics in the store (an account with `metrics: true`), read
// with the page: GET /watch's events carry no metrics, so they change when the page draws its
// sections again, not in place. An object cloudctl deployed that another field manager changed since
// carries its drift, as the cache keeps it.
import type { Drift } from '../../contract/index.ts';
import type { CacheStore } from '../caching/index.ts';
import { type ManifestStatus, manifestStatus } from '../manifests/index.ts';
import {
  type ApplicationView,
  clusterKeys,
  clusterOf,
  containerMetrics,
  type IndexedObject,
  type PodUsage,
  podMetricsKey,
  podUsage,
  readableApplication,
  type ServerGroup,
} from '../read-model/index.ts';
import { type ObjectFigures, objectFigures } from '../watch/index.ts';
import type { ViewContext } from './status-view.ts';

/** A workload's replicas, as GET /watch sends them in its `figures`. */
type ReplicaFigures = NonNullable<ObjectFigures['replicas']>;

/** How a version or manager reads in words: the first that holds of failed, paused, stable. */
export type Health = 'failed' | 'paused' | 'stable' | 'unstable';

export interface ObjectFacts {
  /** `account/namespace/<spinnaker kind> <name>`: what the page and GET /watch events are matched by. */
  key: string;
  account: string;
  namespace: string;
  /** Spinnaker's kind (`replicaSet`) and the object's name. */
  kind: string;
  name: string;
  /** Null when the cache does not hold the object's body (yet). */
  status: ManifestStatus | null;
  /** What other field managers changed since cloudctl deployed it; null: nothing (or not deployed by it). */
  drift: Drift | null;
}

export interface PodFacts extends ObjectFacts {
  phase: string;
  ready: boolean;
  restarts: number | null;
  node: string | null;
  /** Summed over its containers as kubectl top prints them ("250m", "64Mi"); null without metrics. */
  cpu: string | null;
  memory: string | null;
}

export interface WorkloadFacts extends ObjectFacts {
  replicas: ReplicaFigures;
  images: readonly string[];
}

export interface VersionFacts extends WorkloadFacts {
  sequence: number | null;
  /** Selected by a Service: it takes traffic. */
  traffic: boolean;
  loadBalancers: readonly string[];
  pods: PodFacts[];
}

export interface ClusterFacts {
  account: string;
  name: string;
  managers: WorkloadFacts[];
  versions: VersionFacts[];
}

export interface ApplicationFacts {
  name: string;
  clusters: ClusterFacts[];
  /** Accounts where the user may act (WRITE). */
  writable: ReadonlySet<string>;
}

export const objectKey = (o: { account: string; namespace: string; kind: string; name: string }) =>
  `${o.account}/${o.namespace}/${o.kind} ${o.name}`;

const indexKey = (o: IndexedObject) => `${o.account}/${o.namespace}/${o.spinnakerKind} ${o.name}`;

/** The words for a status; an object without one reads as unstable, as GET /manifests would say. */
export function healthOf(status: ManifestStatus | null): Health {
  if (status === null) return 'unstable';
  if (status.failed.state) return 'failed';
  if (status.paused.state) return 'paused';
  return status.stable.state ? 'stable' : 'unstable';
}

/** The message that goes with the health: why it is failed, paused or not yet stable. */
export function healthMessage(status: ManifestStatus | null): string | null {
  if (status === null) return 'not cached yet';
  return status.failed.state
    ? status.failed.message
    : status.paused.state
      ? status.paused.message
      : status.stable.state
        ? null
        : status.stable.message;
}

interface Body {
  status: ManifestStatus | null;
  figures: ObjectFigures;
  drift: Drift | null;
}

/** The objects' bodies from the cache, in a few reads for all of them, by key: status and figures. */
async function bodies(cache: Pick<CacheStore, 'objects'>, objects: readonly IndexedObject[]) {
  const rawKey = (o: { account: string; group: string; kind: string; namespace: string; name: string }) =>
    `${o.account}/${o.group}/${o.kind}/${o.namespace}/${o.name}`;
  const byRawKey = new Map(objects.map((o) => [rawKey(o), o]));
  const found = new Map<string, Body>();
  for (const cached of await cache.objects(objects)) {
    const o = byRawKey.get(rawKey(cached));
    if (o === undefined) continue;
    found.set(indexKey(o), {
      status: manifestStatus(o.group, o.kind, cached.body),
      figures: objectFigures(o.group, o.kind, cached.body),
      drift: cached.drift,
    });
  }
  return found;
}

/** The pods' latest metrics from the store, in a few reads for all of them, by key. */
async function usages(cache: Pick<CacheStore, 'objects'>, pods: readonly IndexedObject[]) {
  const byMetricsKey = new Map(pods.map((p) => [`${p.account}/${p.namespace}/${p.name}`, p]));
  const found = new Map<string, PodUsage>();
  for (const cached of await cache.objects(pods.map(podMetricsKey))) {
    const pod = byMetricsKey.get(`${cached.account}/${cached.namespace}/${cached.name}`);
    if (pod !== undefined) found.set(indexKey(pod), podUsage(containerMetrics(cached.body)));
  }
  return found;
}

const noReplicas = (desired: number): ReplicaFigures => ({
  desired,
  current: 0,
  ready: 0,
  available: 0,
  updated: 0,
});

function workload(o: IndexedObject, body: Body | undefined): WorkloadFacts {
  return {
    key: indexKey(o),
    account: o.account,
    namespace: o.namespace,
    kind: o.spinnakerKind,
    name: o.name,
    status: body?.status ?? null,
    drift: body?.drift ?? null,
    replicas: body?.figures.replicas ?? noReplicas(o.summary.desired ?? 0),
    images: o.summary.images ?? [],
  };
}

function version(
  sg: ServerGroup,
  index: ReadonlyMap<string, IndexedObject>,
  found: ReadonlyMap<string, Body>,
  usage: ReadonlyMap<string, PodUsage>,
): VersionFacts | undefined {
  const key = `${sg.account}/${sg.namespace}/${sg.name}`;
  const object = index.get(key);
  if (object === undefined) return undefined;
  const pods = sg.instances.flatMap((instance): PodFacts[] => {
    const podKey = `${instance.account}/${instance.namespace}/${instance.name}`;
    const pod = index.get(podKey);
    if (pod === undefined) return [];
    const body = found.get(podKey);
    return [
      {
        key: podKey,
        account: pod.account,
        namespace: pod.namespace,
        kind: pod.spinnakerKind,
        name: pod.name,
        status: body?.status ?? null,
        drift: body?.drift ?? null,
        phase: instance.phase,
        ready: instance.ready,
        restarts: body?.figures.restarts ?? null,
        node: body?.figures.node ?? null,
        cpu: usage.get(podKey)?.cpu ?? null,
        memory: usage.get(podKey)?.memory ?? null,
      },
    ];
  });
  return {
    ...workload(object, found.get(key)),
    sequence: sg.moniker.sequence ?? null,
    traffic: !sg.disabled,
    loadBalancers: sg.loadBalancers,
    pods,
  };
}

/** Newest first: by sequence, then by creation (a version without a sequence after those with one). */
function newestFirst(a: VersionFacts, b: VersionFacts): number {
  return (b.sequence ?? -1) - (a.sequence ?? -1) || b.name.localeCompare(a.name);
}

function clustersOf(
  view: ApplicationView,
  found: ReadonlyMap<string, Body>,
  usage: ReadonlyMap<string, PodUsage> = new Map(),
): ClusterFacts[] {
  const index = new Map([...view.objects, ...view.instances].map((o) => [indexKey(o), o]));
  return clusterKeys(view.objects, view.application).map(({ account, name }) => {
    const cluster = clusterOf(view, account, name, true);
    const managers = view.objects.filter(
      (o) => o.role === 'serverGroupManager' && o.account === account && o.cluster === name,
    );
    return {
      account,
      name,
      managers: managers.map((m) => workload(m, found.get(indexKey(m)))),
      versions: cluster.serverGroups
        .flatMap((sg) => version(sg, index, found, usage) ?? [])
        .sort(newestFirst),
    };
  });
}

async function readable(context: ViewContext, name: string): Promise<ApplicationView> {
  const { sources, user } = context;
  return readableApplication({ guard: sources.guard, model: sources.store.readModel }, user, name, {
    roles: ['serverGroup', 'serverGroupManager'],
    parts: { instances: true, loadBalancers: true },
  });
}

const workloadsOf = (view: ApplicationView) =>
  view.objects.filter((o) => o.role === 'serverGroup' || o.role === 'serverGroupManager');

async function writableAccounts(context: ViewContext): Promise<Set<string>> {
  return new Set((await context.sources.guard.visible(context.user, 'WRITE')).map((a) => a.name));
}

/** The application as the user may see it, its pods' bodies read too; 404 (HttpError) when they may read none of it. */
export async function applicationFacts(context: ViewContext, name: string): Promise<ApplicationFacts> {
  const [view, writable] = await Promise.all([readable(context, name), writableAccounts(context)]);
  const [found, usage] = await Promise.all([
    bodies(context.sources.store.cache, [...workloadsOf(view), ...view.instances]),
    usages(context.sources.store.cache, view.instances),
  ]);
  return { name: view.application, clusters: clustersOf(view, found, usage), writable };
}

/**
 * Several applications for the list, their workloads' bodies read together, and no pod's: the list
 * counts pods ready from the read model. At 100 applications and 5 000 pods, reading each pod and
 * each application's bodies on their own made the list take 30 s (bench/status-page.ts).
 */
export async function applicationsFacts(
  context: ViewContext,
  names: readonly string[],
): Promise<ApplicationFacts[]> {
  const [views, writable] = await Promise.all([
    Promise.all(names.map((name) => readable(context, name))),
    writableAccounts(context),
  ]);
  const found = await bodies(context.sources.store.cache, views.flatMap(workloadsOf));
  return views.map((view) => ({ name: view.application, clusters: clustersOf(view, found), writable }));
}
