// What the read model derives from one cached object, computed once when the object is stored: its
// application and cluster (Spinnaker's moniker), its Spinnaker kind and role, its controlling owner,
// its labels and selector, and the few status figures reads show. Reads use only this, never bodies.
// docs/read-model.md is the mapping in prose; keep the two together.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import { spinnakerKind } from '../caching/index.ts';
import { objectMemberText } from './json-member.ts';

export const ROLES = [
  'serverGroup',
  'serverGroupManager',
  'instance',
  'loadBalancer',
  'securityGroup',
  'job',
  'raw',
] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/** Roles by `group/Kind`; every other kind is `raw` (still readable as a raw resource). */
const ROLE_OF: Record<string, Role> = {
  'apps/ReplicaSet': 'serverGroup',
  'apps/StatefulSet': 'serverGroup',
  'apps/DaemonSet': 'serverGroup',
  'apps/Deployment': 'serverGroupManager',
  '/Pod': 'instance',
  '/Service': 'loadBalancer',
  'networking.k8s.io/Ingress': 'loadBalancer',
  'networking.k8s.io/NetworkPolicy': 'securityGroup',
  'batch/Job': 'job',
};

/** The object's role by its group and kind. */
export const roleOf = (group: string, kind: string): Role => ROLE_OF[`${group}/${kind}`] ?? 'raw';

export const MONIKER = {
  application: 'moniker.spinnaker.io/application',
  cluster: 'moniker.spinnaker.io/cluster',
  stack: 'moniker.spinnaker.io/stack',
  detail: 'moniker.spinnaker.io/detail',
  sequence: 'moniker.spinnaker.io/sequence',
} as const;
/** The deployment service's mark (src/agent/accounts/platform-managed.ts). */
export const DEPLOY_APPLICATION = 'deploy.vendor.io/application';
export const RECOMMENDED_NAME_LABEL = 'app.kubernetes.io/name';
const REVISION = 'deployment.kubernetes.io/revision';

/** A label selector as Kubernetes writes it; a Service's plain map becomes `matchLabels`. */
export const selectorSchema = z.object({
  matchLabels: z.record(z.string(), z.string()),
  matchExpressions: z.array(z.object({ key: z.string(), operator: z.string(), values: z.array(z.string()) })),
});
export type Selector = z.infer<typeof selectorSchema>;

export interface Owner {
  kind: string;
  name: string;
  uid: string;
}

/** Role-specific figures, small and already interpreted. */
export const objectSummarySchema = z.object({
  /** Server groups: desired replicas (a DaemonSet's desired scheduled count). */
  desired: z.int().optional(),
  /** Server groups: the pod template's labels, which Services select. */
  templateLabels: z.record(z.string(), z.string()).optional(),
  /** Server groups: the pod template's container images, in order. */
  images: z.array(z.string()).optional(),
  /** Instances: the pod's phase and whether its Ready condition is true. */
  phase: z.string().optional(),
  ready: z.boolean().optional(),
  hostIP: z.string().optional(),
  podIP: z.string().optional(),
  /** Instances: the pod's container names, for its console output. */
  containers: z.array(z.string()).optional(),
  /** Instances: why a container is not running (CrashLoopBackOff, ...). */
  reasons: z.array(z.string()).optional(),
  /** Load balancers: a Service's type; an Ingress is `ingress`. */
  loadBalancerType: z.string().optional(),
  /** Ingresses: the Services they route to. */
  backendServices: z.array(z.string()).optional(),
  /** Jobs: counts and times from the status. */
  active: z.int().optional(),
  succeeded: z.int().optional(),
  failed: z.int().optional(),
  completionTime: z.string().optional(),
  jobCondition: z.string().optional(),
});
export type ObjectSummary = z.infer<typeof objectSummarySchema>;

export interface ObjectIndex {
  uid: string;
  spinnakerKind: string;
  role: Role;
  application: string | null;
  cluster: string | null;
  stack: string | null;
  detail: string | null;
  sequence: number | null;
  owner: Owner | null;
  labels: Record<string, string>;
  selector: Selector | null;
  /** metadata.creationTimestamp in ms since the epoch; null when missing. */
  createdTime: number | null;
  summary: ObjectSummary;
}

export interface ObjectIdentity {
  group: string;
  version: string;
  kind: string;
  name: string;
}

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(value))) if (typeof v === 'string') out[k] = v;
  return out;
}

function selectorOf(value: unknown): Selector | null {
  if (!isRecord(value)) return null;
  const expressions = Array.isArray(value.matchExpressions) ? value.matchExpressions : [];
  return {
    matchLabels: stringMap(value.matchLabels),
    matchExpressions: expressions.filter(isRecord).map((e) => ({
      key: typeof e.key === 'string' ? e.key : '',
      operator: typeof e.operator === 'string' ? e.operator : '',
      values: Array.isArray(e.values) ? e.values.filter((v): v is string => typeof v === 'string') : [],
    })),
  };
}

/** Whether the selector selects the labels. An empty selector selects everything, as in Kubernetes. */
export function selects(selector: Selector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels)) if (labels[k] !== v) return false;
  for (const { key, operator, values } of selector.matchExpressions) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    switch (operator) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The controlling owner (`controller: true`), else the first owner; Spinnaker-spelled kind. */
function ownerOf(metadata: Record<string, unknown>): Owner | null {
  const owners = (Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : []).filter(isRecord);
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  if (owner === undefined) return null;
  const apiVersion = text(owner.apiVersion);
  const kind = text(owner.kind);
  const name = text(owner.name);
  if (apiVersion === null || kind === null || name === null) return null;
  return { kind: spinnakerKind(apiVersion, kind), name, uid: text(owner.uid) ?? '' };
}

function integerAnnotation(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,9}$/.test(value)) return null;
  return Number(value);
}

function ingressBackends(spec: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const add = (backend: unknown) => {
    const b = record(backend);
    const name = text(record(b.service).name) ?? text(b.serviceName);
    if (name !== null) names.add(name);
  };
  add(spec.defaultBackend);
  add(spec.backend);
  for (const rule of Array.isArray(spec.rules) ? spec.rules : []) {
    const paths = record(record(rule).http).paths;
    for (const path of Array.isArray(paths) ? paths : []) add(record(path).backend);
  }
  return [...names].sort();
}

function summaryOf(role: Role, kind: string, object: Record<string, unknown>): ObjectSummary {
  const spec = record(object.spec);
  const status = record(object.status);
  switch (role) {
    case 'serverGroup': {
      const desired =
        kind === 'DaemonSet' ? (count(status.desiredNumberScheduled) ?? 0) : (count(spec.replicas) ?? 1);
      const template = record(spec.template);
      const containers = record(template.spec).containers;
      const images = (Array.isArray(containers) ? containers : [])
        .map((c) => text(record(c).image))
        .filter((image): image is string => image !== null);
      return { desired, templateLabels: stringMap(record(template.metadata).labels), images };
    }
    case 'instance': {
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isRecord);
      const ready = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
      const reasons = (Array.isArray(status.containerStatuses) ? status.containerStatuses : [])
        .filter(isRecord)
        .map(
          (c) =>
            text(record(record(c.state).waiting).reason) ?? text(record(record(c.state).terminated).reason),
        )
        .filter((r): r is string => r !== null);
      const containers = (Array.isArray(spec.containers) ? spec.containers : [])
        .map((c) => text(record(c).name))
        .filter((name): name is string => name !== null);
      return {
        phase: text(status.phase) ?? 'Unknown',
        ready,
        containers,
        ...(text(status.hostIP) === null ? {} : { hostIP: String(status.hostIP) }),
        ...(text(status.podIP) === null ? {} : { podIP: String(status.podIP) }),
        ...(reasons.length === 0 ? {} : { reasons }),
      };
    }
    case 'loadBalancer':
      return kind === 'Ingress'
        ? { loadBalancerType: 'ingress', backendServices: ingressBackends(spec) }
        : { loadBalancerType: text(spec.type) ?? 'ClusterIP' };
    case 'job': {
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isRecord);
      const done = conditions.find(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      );
      const completionTime = text(status.completionTime);
      return {
        active: count(status.active) ?? 0,
        succeeded: count(status.succeeded) ?? 0,
        failed: count(status.failed) ?? 0,
        ...(completionTime === null ? {} : { completionTime }),
        ...(done === undefined ? {} : { jobCondition: String(done.type) }),
      };
    }
    default:
      return {};
  }
}

/** The object, or as much of it as the role reads: a raw object's metadata only. */
function parseFor(role: Role, body: string): Record<string, unknown> {
  if (role === 'raw') {
    const metadata = objectMemberText(body, 'metadata');
    if (metadata !== undefined) {
      try {
        return { metadata: JSON.parse(metadata) };
      } catch {
        // Not what it seemed: the whole body decides.
      }
    }
  }
  try {
    return record(JSON.parse(body));
  } catch {
    return {};
  }
}

/** What the read model keeps of an object. `body` is the object as JSON text, as agents send it. */
export function indexObject(identity: ObjectIdentity, body: string): ObjectIndex {
  const role = roleOf(identity.group, identity.kind);
  const object = parseFor(role, body);
  const metadata = record(object.metadata);
  const annotations = stringMap(metadata.annotations);
  const labels = stringMap(metadata.labels);
  const apiVersion = identity.group === '' ? identity.version : `${identity.group}/${identity.version}`;
  const kind = spinnakerKind(apiVersion, identity.kind);
  const owner = ownerOf(metadata);
  const application =
    text(annotations[MONIKER.application]) ??
    text(annotations[DEPLOY_APPLICATION]) ??
    text(labels[RECOMMENDED_NAME_LABEL]);
  // A ReplicaSet a Deployment controls is in the Deployment's cluster even when unannotated, as the
  // Deployment's annotations (moniker included) are copied onto it by Kubernetes when they exist.
  const defaultCluster =
    role === 'serverGroup' && owner?.kind === 'deployment'
      ? `${owner.kind} ${owner.name}`
      : `${kind} ${identity.name}`;
  const spec = record(object.spec);
  const selector =
    role === 'loadBalancer' && identity.kind === 'Service'
      ? isRecord(spec.selector)
        ? { matchLabels: stringMap(spec.selector), matchExpressions: [] }
        : null
      : role === 'securityGroup'
        ? selectorOf(spec.podSelector)
        : selectorOf(spec.selector);
  const created = text(metadata.creationTimestamp);
  const createdTime = created === null ? Number.NaN : Date.parse(created);
  return {
    uid: text(metadata.uid) ?? '',
    spinnakerKind: kind,
    role,
    application,
    cluster: application === null ? null : (text(annotations[MONIKER.cluster]) ?? defaultCluster),
    stack: text(annotations[MONIKER.stack]),
    detail: text(annotations[MONIKER.detail]),
    sequence: integerAnnotation(annotations[MONIKER.sequence]) ?? integerAnnotation(annotations[REVISION]),
    owner,
    labels,
    selector,
    createdTime: Number.isFinite(createdTime) ? createdTime : null,
    summary: summaryOf(role, identity.kind, object),
  };
}
