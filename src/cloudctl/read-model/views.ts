// Records built from index rows: a server group with its instances, counts and load balancers, a
// load balancer with the server groups it selects, clusters and managers. Pure functions of the rows
// the queries return, so the mapping is tested without a database.
import { selects } from './object-mapping.ts';
import type { IndexedObject } from './read-model.ts';
import {
  CLOUD_PROVIDER,
  type Cluster,
  type ClusterView,
  type Instance,
  type LoadBalancer,
  type Moniker,
  type RawResource,
  type SecurityGroup,
  type SecurityGroupSummary,
  type ServerGroup,
  type ServerGroupManager,
} from './records.ts';

/** Appends to the list under the key, creating it. */
export function appendTo<T>(lists: Record<string, T[]>, key: string, value: T): void {
  const list = lists[key];
  if (list === undefined) lists[key] = [value];
  else list.push(value);
}

/** "<kind> <name>", Spinnaker's name of an object. */
export const fullName = (o: { spinnakerKind: string; name: string }) => `${o.spinnakerKind} ${o.name}`;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Order of answers: account, namespace, then "<kind> <name>". */
const byName = (a: IndexedObject, b: IndexedObject) =>
  compare(a.account, b.account) || compare(a.namespace, b.namespace) || compare(fullName(a), fullName(b));

export function monikerOf(o: IndexedObject): Moniker | null {
  if (o.application === null) return null;
  return {
    app: o.application,
    cluster: o.cluster ?? fullName(o),
    ...(o.stack === null ? {} : { stack: o.stack }),
    ...(o.detail === null ? {} : { detail: o.detail }),
    ...(o.sequence === null ? {} : { sequence: o.sequence }),
  };
}

/** A server group or manager reached through an owner has no application of its own: the owner's. */
function monikerWithin(o: IndexedObject, application: string): Moniker {
  return monikerOf(o) ?? { app: application, cluster: o.cluster ?? fullName(o) };
}

type HealthState = Instance['healthState'];

/** Pending → Starting; Running and Ready → Up; Running not Ready → Down; Succeeded, Failed as named. */
export function healthState(phase: string | undefined, ready: boolean | undefined): HealthState {
  switch (phase) {
    case 'Pending':
      return 'Starting';
    case 'Running':
      return ready === true ? 'Up' : 'Down';
    case 'Succeeded':
      return 'Succeeded';
    case 'Failed':
      return 'Failed';
    default:
      return 'Unknown';
  }
}

export function instanceOf(pod: IndexedObject): Instance {
  const state = healthState(pod.summary.phase, pod.summary.ready);
  return {
    name: fullName(pod),
    humanReadableName: fullName(pod),
    displayName: pod.name,
    account: pod.account,
    namespace: pod.namespace,
    zone: pod.namespace,
    kind: pod.spinnakerKind,
    cloudProvider: CLOUD_PROVIDER,
    providerType: CLOUD_PROVIDER,
    launchTime: pod.createdTime,
    healthState: state,
    health: [{ type: `${CLOUD_PROVIDER}/pod`, state }],
    phase: pod.summary.phase ?? 'Unknown',
    ready: pod.summary.ready ?? false,
    labels: pod.labels,
  };
}

/** The Services among `loadBalancers` that select the server group's pods. */
function servicesSelecting(
  serverGroup: IndexedObject,
  loadBalancers: readonly IndexedObject[],
): IndexedObject[] {
  const podLabels = serverGroup.summary.templateLabels ?? {};
  return loadBalancers.filter(
    (lb) =>
      lb.kind === 'Service' &&
      lb.account === serverGroup.account &&
      lb.namespace === serverGroup.namespace &&
      lb.selector !== null &&
      Object.keys(lb.selector.matchLabels).length + lb.selector.matchExpressions.length > 0 &&
      selects(lb.selector, podLabels),
  );
}

/** Load balancers of a server group: the Services selecting it and the Ingresses routing to those. */
export function loadBalancersOf(
  serverGroup: IndexedObject,
  loadBalancers: readonly IndexedObject[],
): IndexedObject[] {
  const services = servicesSelecting(serverGroup, loadBalancers);
  const names = new Set(services.map((s) => s.name));
  const ingresses = loadBalancers.filter(
    (lb) =>
      lb.kind === 'Ingress' &&
      lb.account === serverGroup.account &&
      lb.namespace === serverGroup.namespace &&
      (lb.summary.backendServices ?? []).some((name) => names.has(name)),
  );
  return [...services, ...ingresses].sort(byName);
}

export interface ServerGroupContext {
  application: string;
  instances: readonly IndexedObject[];
  loadBalancers: readonly IndexedObject[];
  /** NetworkPolicies near the server groups; those whose podSelector selects its pods are its own. */
  securityGroups: readonly IndexedObject[];
  expand: boolean;
}

/**
 * The NetworkPolicies that apply to the server group's pods: same account and namespace, and a
 * podSelector that selects its pod template's labels (an empty one selects every pod, as in
 * Kubernetes; unlike a Service's, which selects none).
 */
export function securityGroupsOf(
  serverGroup: IndexedObject,
  securityGroups: readonly IndexedObject[],
): IndexedObject[] {
  const podLabels = serverGroup.summary.templateLabels ?? {};
  return securityGroups
    .filter(
      (policy) =>
        policy.account === serverGroup.account &&
        policy.namespace === serverGroup.namespace &&
        policy.selector !== null &&
        selects(policy.selector, podLabels),
    )
    .sort(byName);
}

export function serverGroupOf(sg: IndexedObject, context: ServerGroupContext): ServerGroup {
  const pods = context.instances
    .filter(
      (p) =>
        p.account === sg.account &&
        p.namespace === sg.namespace &&
        p.ownerKind === sg.spinnakerKind &&
        p.ownerName === sg.name,
    )
    .sort(byName);
  const instances = pods.map(instanceOf);
  const counts = { total: instances.length, up: 0, down: 0, starting: 0, outOfService: 0, unknown: 0 };
  for (const i of instances) {
    if (i.healthState === 'Up') counts.up++;
    else if (i.healthState === 'Starting') counts.starting++;
    else if (i.healthState === 'Unknown') counts.unknown++;
    else counts.down++;
  }
  const lbs = loadBalancersOf(sg, context.loadBalancers);
  const desired = sg.summary.desired ?? 0;
  const moniker = monikerWithin(sg, context.application);
  return {
    name: fullName(sg),
    displayName: sg.name,
    account: sg.account,
    region: sg.namespace,
    namespace: sg.namespace,
    zones: [],
    kind: sg.spinnakerKind,
    cloudProvider: CLOUD_PROVIDER,
    type: CLOUD_PROVIDER,
    cluster: moniker.cluster,
    moniker,
    createdTime: sg.createdTime,
    disabled: !lbs.some((lb) => lb.kind === 'Service'),
    capacity: { min: desired, max: desired, desired, pinned: false },
    instanceCounts: counts,
    instances: context.expand ? instances : [],
    loadBalancers: lbs.map(fullName),
    securityGroups: securityGroupsOf(sg, context.securityGroups).map(fullName),
    serverGroupManagers:
      sg.ownerKind === 'deployment' && sg.ownerName !== null
        ? [{ account: sg.account, location: sg.namespace, name: sg.ownerName }]
        : [],
    labels: sg.labels,
  };
}

/** A load balancer with the server groups (of `serverGroups`) it selects and their instances. */
export function loadBalancerOf(
  lb: IndexedObject,
  serverGroups: readonly IndexedObject[],
  context: ServerGroupContext,
): LoadBalancer {
  const selected = serverGroups
    .filter((sg) =>
      loadBalancersOf(sg, context.loadBalancers).some(
        (l) => fullName(l) === fullName(lb) && l.namespace === lb.namespace,
      ),
    )
    .sort(byName)
    .map((sg) => serverGroupOf(sg, { ...context, expand: true }));
  return {
    name: fullName(lb),
    displayName: lb.name,
    account: lb.account,
    region: lb.namespace,
    namespace: lb.namespace,
    kind: lb.spinnakerKind,
    cloudProvider: CLOUD_PROVIDER,
    type: CLOUD_PROVIDER,
    moniker: monikerOf(lb),
    createdTime: lb.createdTime,
    labels: lb.labels,
    serverGroups: selected.map((sg) => ({
      name: sg.name,
      account: sg.account,
      region: sg.region,
      cloudProvider: CLOUD_PROVIDER,
      isDisabled: sg.disabled,
      instances: sg.instances.map((i) => ({
        id: i.name,
        name: i.name,
        zone: i.zone,
        health: { state: i.healthState },
      })),
      detachedInstances: [],
    })),
  };
}

/** The clusters (account and name) of the objects: server groups and their managers form them. */
export function clusterKeys(
  objects: readonly IndexedObject[],
  application: string,
): Array<{ account: string; name: string }> {
  const keys = new Map<string, { account: string; name: string }>();
  for (const o of objects) {
    if (o.role !== 'serverGroup' && o.role !== 'serverGroupManager') continue;
    const name = monikerWithin(o, application).cluster;
    keys.set(`${o.account}\0${name}`, { account: o.account, name });
  }
  return [...keys.values()].sort((a, b) => compare(a.account, b.account) || compare(a.name, b.name));
}

export interface ApplicationView {
  application: string;
  objects: readonly IndexedObject[];
  instances: readonly IndexedObject[];
  loadBalancers: readonly IndexedObject[];
  securityGroups: readonly IndexedObject[];
}

export function serverGroupsIn(view: ApplicationView, account: string, cluster: string): IndexedObject[] {
  return view.objects
    .filter(
      (o) =>
        o.role === 'serverGroup' &&
        o.account === account &&
        monikerWithin(o, view.application).cluster === cluster,
    )
    .sort(byName);
}

export function clusterOf(view: ApplicationView, account: string, name: string, expand: boolean): Cluster {
  const context = { ...view, expand };
  const serverGroups = serverGroupsIn(view, account, name);
  const lbKeys = new Set<string>();
  const lbs: IndexedObject[] = [];
  for (const sg of serverGroups) {
    for (const lb of loadBalancersOf(sg, view.loadBalancers)) {
      const key = `${lb.namespace}\0${fullName(lb)}`;
      if (!lbKeys.has(key)) {
        lbKeys.add(key);
        lbs.push(lb);
      }
    }
  }
  const first = view.objects.find(
    (o) =>
      o.account === account && monikerWithin(o, view.application).cluster === name && o.application !== null,
  );
  return {
    name,
    accountName: account,
    application: view.application,
    type: CLOUD_PROVIDER,
    moniker:
      first === undefined ? { app: view.application, cluster: name } : monikerWithin(first, view.application),
    serverGroups: serverGroups.map((sg) => serverGroupOf(sg, context)),
    loadBalancers: lbs.sort(byName).map((lb) => loadBalancerOf(lb, serverGroups, context)),
  };
}

export function clusterViewOf(view: ApplicationView, account: string, name: string): ClusterView {
  const cluster = clusterOf(view, account, name, false);
  return {
    account,
    name,
    moniker: cluster.moniker,
    serverGroups: cluster.serverGroups.map((sg) => sg.name),
    loadBalancers: cluster.loadBalancers.map((lb) => lb.name),
  };
}

export function serverGroupManagerOf(manager: IndexedObject, view: ApplicationView): ServerGroupManager {
  const owned = view.objects
    .filter(
      (o) =>
        o.role === 'serverGroup' &&
        o.account === manager.account &&
        o.namespace === manager.namespace &&
        o.ownerKind === manager.spinnakerKind &&
        o.ownerName === manager.name,
    )
    .sort(byName);
  return {
    name: fullName(manager),
    displayName: manager.name,
    account: manager.account,
    region: manager.namespace,
    namespace: manager.namespace,
    kind: manager.spinnakerKind,
    cloudProvider: CLOUD_PROVIDER,
    moniker: monikerWithin(manager, view.application),
    createdTime: manager.createdTime,
    labels: manager.labels,
    serverGroups: owned.map((sg) => ({
      name: fullName(sg),
      account: sg.account,
      region: sg.namespace,
      moniker: monikerWithin(sg, view.application),
    })),
  };
}

export function rawResourceOf(o: IndexedObject): RawResource {
  return {
    name: fullName(o),
    displayName: o.name,
    account: o.account,
    apiVersion: o.group === '' ? o.version : `${o.group}/${o.version}`,
    kind: o.spinnakerKind,
    namespace: o.namespace,
    region: o.namespace,
    createdTime: o.createdTime,
    labels: o.labels,
    moniker: monikerOf(o),
  };
}

export function securityGroupSummaryOf(o: IndexedObject): SecurityGroupSummary {
  return { id: fullName(o), name: fullName(o), moniker: monikerOf(o) };
}

export function securityGroupOf(o: IndexedObject): SecurityGroup {
  return {
    id: fullName(o),
    name: fullName(o),
    displayName: o.name,
    accountName: o.account,
    application: o.application,
    region: o.namespace,
    namespace: o.namespace,
    cloudProvider: CLOUD_PROVIDER,
    type: CLOUD_PROVIDER,
    moniker: monikerOf(o),
    labels: o.labels,
    summary: securityGroupSummaryOf(o),
  };
}

export { byName };
