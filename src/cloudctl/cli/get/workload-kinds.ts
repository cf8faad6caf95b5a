// Server groups (an application's versions), their pods and every object of an application, from
// GET /applications/{app}/serverGroups?expand=true and /rawResources, for the application --app names
// or each one the user may read. Under --watch, the object events of GET /watch make the same rows
// (the fields of the contract's WatchObjectEvent they read are below).
import { z } from 'zod';
import type { ApiClient } from '../client/index.ts';
import { ageOf } from './age.ts';
import type { Filter } from './kind.ts';
import { defineKind } from './show-kind.ts';

const monikerSchema = z.looseObject({ app: z.string(), cluster: z.string() }).nullable();

const instanceSchema = z.looseObject({
  displayName: z.string(),
  account: z.string(),
  namespace: z.string(),
  launchTime: z.number().nullable(),
  healthState: z.string(),
  phase: z.string(),
  ready: z.boolean(),
});

const serverGroupSchema = z.looseObject({
  displayName: z.string(),
  kind: z.string(),
  account: z.string(),
  namespace: z.string(),
  cluster: z.string(),
  moniker: z.looseObject({ app: z.string() }),
  createdTime: z.number().nullable(),
  disabled: z.boolean(),
  capacity: z.looseObject({ desired: z.int() }),
  instanceCounts: z.looseObject({ total: z.int(), up: z.int() }),
  instances: z.array(instanceSchema),
});

const rawResourceSchema = z.looseObject({
  displayName: z.string(),
  kind: z.string(),
  account: z.string(),
  namespace: z.string(),
  createdTime: z.number().nullable(),
  moniker: monikerSchema,
});

/** The fields of a WatchObjectEvent (src/cloudctl/watch/watch-events.ts) the rows are made of. */
const objectEventSchema = z.looseObject({
  type: z.enum(['changed', 'removed']),
  account: z.string(),
  spinnakerKind: z.string(),
  namespace: z.string(),
  name: z.string(),
  moniker: monikerSchema,
  role: z.string().optional(),
  owner: z.looseObject({ kind: z.string(), name: z.string() }).nullable().optional(),
  summary: z.looseObject({ phase: z.string().optional(), ready: z.boolean().optional() }).optional(),
  figures: z
    .looseObject({
      replicas: z.looseObject({ desired: z.int(), current: z.int(), ready: z.int() }).optional(),
      restarts: z.int().optional(),
    })
    .optional(),
  createdTime: z.number().nullable().optional(),
});
type ObjectEvent = z.infer<typeof objectEventSchema>;

function objectEvent(event: string, data: unknown): ObjectEvent | undefined {
  if (event !== 'object') return undefined;
  const parsed = objectEventSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

/** The applications to read: the one --app names, else every one the user may read. */
async function applications(client: ApiClient, filter: Filter): Promise<string[]> {
  if (filter.app !== undefined) return [filter.app];
  const all = await client.get('/applications', z.array(z.looseObject({ name: z.string() })));
  return all.map((a) => a.name).sort();
}

async function serverGroups(client: ApiClient, filter: Filter) {
  const lists = await Promise.all(
    (await applications(client, filter)).map((app) =>
      client.get(`/applications/${encodeURIComponent(app)}/serverGroups`, z.array(serverGroupSchema), {
        expand: 'true',
      }),
    ),
  );
  return lists.flat();
}

interface ServerGroupRow {
  name: string;
  account: string;
  namespace: string;
  application: string;
  cluster: string;
  /** Undefined for one a watch event removed. */
  desired: number | undefined;
  ready: number | undefined;
  /** Whether a Service selects its pods; unknown from a watch event. */
  traffic: boolean | undefined;
  createdTime: number | null;
}

/** Spinnaker spells kinds with a lower-case first letter (`replicaSet`), the owner reference as Kubernetes does. */
const lowerFirst = (kind: string) => `${kind.charAt(0).toLowerCase()}${kind.slice(1)}`;

const count = (n: number | undefined) => (n === undefined ? '-' : String(n));

export const serverGroupsKind = defineKind<ServerGroupRow>({
  name: 'servergroups',
  singular: 'servergroup',
  scopes: ['account', 'namespace', 'app'],
  list: async (client, filter) =>
    (await serverGroups(client, filter)).map((g) => ({
      name: `${g.kind}/${g.displayName}`,
      account: g.account,
      namespace: g.namespace,
      application: g.moniker.app,
      cluster: g.cluster,
      desired: g.capacity.desired,
      ready: g.instanceCounts.up,
      traffic: !g.disabled,
      createdTime: g.createdTime,
    })),
  nameOf: (g) => g.name,
  accountOf: (g) => g.account,
  namespaceOf: (g) => g.namespace,
  columns: [
    { header: 'NAME', value: (g) => g.name },
    { header: 'ACCOUNT', value: (g) => g.account },
    { header: 'NAMESPACE', value: (g) => g.namespace },
    { header: 'CLUSTER', value: (g) => g.cluster },
    { header: 'DESIRED', value: (g) => count(g.desired) },
    { header: 'READY', value: (g) => count(g.ready) },
    { header: 'AGE', value: (g, now) => ageOf(g.createdTime, now) },
    { header: 'APPLICATION', wide: true, value: (g) => g.application },
    {
      header: 'TRAFFIC',
      wide: true,
      value: (g) => (g.traffic === undefined ? '-' : g.traffic ? 'yes' : 'no'),
    },
  ],
  watch: {
    query: { events: 'object' },
    row: (event, data) => {
      const o = objectEvent(event, data);
      if (o === undefined || o.role !== 'serverGroup' || o.moniker === null) return undefined;
      const replicas = o.type === 'removed' ? undefined : o.figures?.replicas;
      return {
        name: `${o.spinnakerKind}/${o.name}`,
        account: o.account,
        namespace: o.namespace,
        application: o.moniker.app,
        cluster: o.moniker.cluster,
        desired: replicas?.desired,
        ready: replicas?.ready,
        traffic: undefined,
        createdTime: o.createdTime ?? null,
      };
    },
  },
});

interface PodRow {
  name: string;
  account: string;
  namespace: string;
  ready: boolean | undefined;
  status: string;
  createdTime: number | null;
  serverGroup: string;
  /** From a watch event: the pod's own moniker's application, when it has one. */
  application?: string;
}

export const podsKind = defineKind<PodRow>({
  name: 'pods',
  singular: 'pod',
  scopes: ['account', 'namespace', 'app'],
  list: async (client, filter) =>
    (await serverGroups(client, filter)).flatMap((g) =>
      g.instances.map((i) => ({
        name: i.displayName,
        account: i.account,
        namespace: i.namespace,
        ready: i.ready,
        status: i.phase,
        createdTime: i.launchTime,
        serverGroup: `${g.kind}/${g.displayName}`,
      })),
    ),
  nameOf: (p) => p.name,
  accountOf: (p) => p.account,
  namespaceOf: (p) => p.namespace,
  columns: [
    { header: 'NAME', value: (p) => p.name },
    { header: 'READY', value: (p) => (p.ready === undefined ? '-' : p.ready ? 'True' : 'False') },
    { header: 'STATUS', value: (p) => p.status },
    { header: 'AGE', value: (p, now) => ageOf(p.createdTime, now) },
    { header: 'ACCOUNT', value: (p) => p.account },
    { header: 'NAMESPACE', value: (p) => p.namespace },
    { header: 'SERVER GROUP', wide: true, value: (p) => p.serverGroup },
  ],
  watch: {
    query: { events: 'object', kinds: 'pod' },
    row: (event, data) => {
      const o = objectEvent(event, data);
      if (o === undefined || o.spinnakerKind !== 'pod') return undefined;
      return {
        name: o.name,
        account: o.account,
        namespace: o.namespace,
        ready: o.type === 'removed' ? undefined : o.summary?.ready,
        status: o.type === 'removed' ? 'Removed' : (o.summary?.phase ?? ''),
        createdTime: o.createdTime ?? null,
        serverGroup:
          o.owner === null || o.owner === undefined ? '' : `${lowerFirst(o.owner.kind)}/${o.owner.name}`,
        ...(o.moniker === null ? {} : { application: o.moniker.app }),
      };
    },
    // A pod made from a template without moniker annotations belongs to its server group's application.
    inApplication: (pod, listed, app) =>
      pod.application === app || listed.some((p) => p.serverGroup === pod.serverGroup),
  },
});

interface ManifestRow {
  name: string;
  account: string;
  namespace: string;
  application: string;
  cluster: string;
  createdTime: number | null;
}

export const manifestsKind = defineKind<ManifestRow>({
  name: 'manifests',
  singular: 'manifest',
  scopes: ['account', 'namespace', 'app'],
  list: async (client, filter) => {
    const lists = await Promise.all(
      (await applications(client, filter)).map((app) =>
        client.get(`/applications/${encodeURIComponent(app)}/rawResources`, z.array(rawResourceSchema)),
      ),
    );
    return lists.flat().map((r) => ({
      name: `${r.kind}/${r.displayName}`,
      account: r.account,
      namespace: r.namespace,
      application: r.moniker?.app ?? '',
      cluster: r.moniker?.cluster ?? '',
      createdTime: r.createdTime,
    }));
  },
  nameOf: (m) => m.name,
  accountOf: (m) => m.account,
  namespaceOf: (m) => m.namespace,
  columns: [
    { header: 'NAME', value: (m) => m.name },
    { header: 'ACCOUNT', value: (m) => m.account },
    { header: 'NAMESPACE', value: (m) => m.namespace },
    { header: 'CLUSTER', value: (m) => m.cluster },
    { header: 'AGE', value: (m, now) => ageOf(m.createdTime, now) },
    { header: 'APPLICATION', wide: true, value: (m) => m.application },
  ],
  watch: {
    query: { events: 'object' },
    row: (event, data) => {
      const o = objectEvent(event, data);
      if (o === undefined || o.moniker === null) return undefined;
      return {
        name: `${o.spinnakerKind}/${o.name}`,
        account: o.account,
        namespace: o.namespace,
        application: o.moniker.app,
        cluster: o.moniker.cluster,
        createdTime: o.type === 'removed' ? null : (o.createdTime ?? null),
      };
    },
  },
});
