// Traffic management on deploy, as pure rules over the request's manifests: the ReplicaSet is
// annotated with its Services (`traffic.spinnaker.io/load-balancers`), with enableTraffic their
// selector labels are added to its pod template so it starts in service, and the strategy's plan
// for the cluster's other versions comes back for the caller to carry out after the deploy.
// Refused with a PayloadError (a 400), as clouddriver or Deck refuse them: a Service that is missing
// or has no selector, a load balancer that is not a Service, a selector sharing a label key with the
// pod template, an annotation contradicting `services`, traffic management on any workload but a
// ReplicaSet, and a red/black strategy with `max-version-history` under 2.
import { isRecord } from '../../../../lib/is-record.ts';
import { PayloadError } from '../converter.ts';
import { type FollowUpPlan, planFor } from './follow-up.ts';
import {
  annotatedLoadBalancers,
  LOAD_BALANCERS_ANNOTATION,
  parseLoadBalancer,
  serviceSelector,
} from './load-balancers.ts';
import type { TrafficManagement } from './traffic-request.ts';

/** The shape of a manifest this module reads and writes; anything else in it passes through. */
export interface TrafficManifest {
  apiVersion: string;
  kind: string;
  metadata: { name?: string | undefined; namespace?: string | undefined; [key: string]: unknown };
  [key: string]: unknown;
}

export interface TrafficResult<M extends TrafficManifest> {
  /** The manifests in order, the ReplicaSet annotated and (enableTraffic) labelled. */
  manifests: M[];
  /** What the strategy does to the cluster's other versions once the deploy succeeded. */
  plan: FollowUpPlan;
}

const MAX_VERSION_HISTORY = 'strategy.spinnaker.io/max-version-history';

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const annotationsOf = (m: TrafficManifest) => record(m.metadata.annotations);
const isReplicaSet = (m: TrafficManifest) => m.kind === 'ReplicaSet' && m.apiVersion.startsWith('apps/');
/** Workloads run pods: Pods themselves and every kind with a pod template. */
const isWorkload = (m: TrafficManifest) => m.kind === 'Pod' || isRecord(record(m.spec).template);
const nameOf = (m: TrafficManifest) => String(m.metadata.name ?? m.metadata.generateName ?? '');

function templateLabels(m: TrafficManifest): Record<string, string> {
  const labels = record(record(record(record(m.spec).template).metadata).labels);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The Service `name` in `namespace`: the request's own first (deployed with it), then the cluster's. */
function findService(
  name: string,
  namespace: string,
  manifests: readonly TrafficManifest[],
  services: readonly Record<string, unknown>[],
): Record<string, unknown> | undefined {
  const matches = (s: Record<string, unknown>) => {
    const metadata = record(s.metadata);
    return s.kind === 'Service' && metadata.name === name && (metadata.namespace ?? '') === namespace;
  };
  return manifests.find((m) => matches(m)) ?? services.find(matches);
}

/** Which ReplicaSet traffic management acts on, or undefined when none is asked for; 400s as above. */
function trafficTarget(manifests: readonly TrafficManifest[], traffic: TrafficManagement) {
  const annotated = manifests.flatMap((m, i) =>
    isWorkload(m) && LOAD_BALANCERS_ANNOTATION in annotationsOf(m) ? [i] : [],
  );
  if (!traffic.enabled && annotated.length === 0) return undefined;
  for (const [i, m] of manifests.entries()) {
    if (isWorkload(m) && !isReplicaSet(m)) {
      throw new PayloadError(
        `manifests[${i}]`,
        `traffic management applies to a ReplicaSet only, and this is a ${m.kind}: deploy one ReplicaSet, or turn traffic management off`,
      );
    }
  }
  const replicaSets = manifests.flatMap((m, i) => (isReplicaSet(m) ? [i] : []));
  if (replicaSets.length !== 1 || replicaSets[0] === undefined) {
    throw new PayloadError(
      'manifests',
      `traffic management needs exactly one ReplicaSet in the request, found ${replicaSets.length}`,
    );
  }
  return replicaSets[0];
}

/** The Services the ReplicaSet takes traffic from: `services`, else its annotation; 400 if they disagree. */
function loadBalancersFor(m: TrafficManifest, index: number, traffic: TrafficManagement) {
  const annotationPath = `manifests[${index}].metadata.annotations`;
  const annotated = annotatedLoadBalancers(m, annotationPath);
  if (traffic.services.length === 0) {
    if (annotated.length === 0) {
      throw new PayloadError('services', 'traffic management needs at least one Service');
    }
    return { references: annotated, path: annotationPath };
  }
  const given = traffic.services.map((s, i) => parseLoadBalancer(s, `services[${i}]`).reference);
  const current = annotated.map((s) => parseLoadBalancer(s, annotationPath).reference);
  if (annotated.length > 0 && JSON.stringify(current) !== JSON.stringify(given)) {
    throw new PayloadError(
      annotationPath,
      `${LOAD_BALANCERS_ANNOTATION} is ${JSON.stringify(annotated)}, and services asks for ${JSON.stringify(given)}`,
    );
  }
  return { references: given, path: 'services' };
}

function checkVersionHistory(m: TrafficManifest, index: number, traffic: TrafficManagement) {
  const raw = annotationsOf(m)[MAX_VERSION_HISTORY];
  if (traffic.strategy === 'redblack' && typeof raw === 'string' && Number.parseInt(raw, 10) < 2) {
    throw new PayloadError(
      `manifests[${index}].metadata.annotations`,
      `${MAX_VERSION_HISTORY} ${raw} conflicts with the redblack strategy, which keeps the previous version: use 2 or more`,
    );
  }
}

/**
 * The Services applyTrafficManagement needs from the cluster: those the ReplicaSet names that the
 * request does not deploy itself. Throws the same PayloadErrors it would.
 */
export function servicesToLookUp(
  manifests: readonly TrafficManifest[],
  traffic: TrafficManagement,
): { namespace: string; name: string }[] {
  const index = trafficTarget(manifests, traffic);
  const target = index === undefined ? undefined : manifests[index];
  if (index === undefined || target === undefined) return [];
  const { references, path } = loadBalancersFor(target, index, traffic);
  const namespace = target.metadata.namespace ?? '';
  return references
    .map((reference) => ({ namespace, name: parseLoadBalancer(reference, path).name }))
    .filter(({ name }) => findService(name, namespace, manifests, []) === undefined);
}

/**
 * Annotates and labels the request's ReplicaSet for traffic management, and plans the strategy.
 * `services` are the cluster's Services the load balancers may name (from the cache), in any
 * namespace; a Service among `manifests` is used before them. Throws PayloadError (400).
 */
export function applyTrafficManagement<M extends TrafficManifest>(
  manifests: readonly M[],
  traffic: TrafficManagement,
  services: readonly Record<string, unknown>[],
): TrafficResult<M> {
  if (!traffic.enabled && traffic.strategy !== 'none') {
    throw new PayloadError(
      'strategy',
      `the ${traffic.strategy} strategy needs traffic management: name services`,
    );
  }
  const index = trafficTarget(manifests, traffic);
  const target = index === undefined ? undefined : manifests[index];
  if (index === undefined || target === undefined)
    return { manifests: [...manifests], plan: planFor('none') };
  checkVersionHistory(target, index, traffic);
  const { references, path } = loadBalancersFor(target, index, traffic);
  const namespace = target.metadata.namespace ?? '';
  const labels = templateLabels(target);
  const added: Record<string, string> = {};
  for (const reference of references) {
    const { name } = parseLoadBalancer(reference, path);
    const service = findService(name, namespace, manifests, services);
    if (service === undefined) {
      throw new PayloadError(path, `service ${name} not found in namespace ${namespace || '(none)'}`);
    }
    const selector = serviceSelector(service);
    if (Object.keys(selector).length === 0) {
      throw new PayloadError(path, `service ${name} has no selector: it sends traffic to no pods by label`);
    }
    if (!traffic.enableTraffic) continue;
    const shared = Object.keys(selector).filter((key) => key in labels || key in added);
    if (shared.length > 0) {
      throw new PayloadError(
        path,
        `service ${name} selects by ${shared.join(', ')}, which the pod template already has: ` +
          'leave the selector labels out of the template; traffic management adds them',
      );
    }
    Object.assign(added, selector);
  }
  const updated = annotateAndLabel(target, references, added);
  const out = manifests.map((m, i) => (i === index ? updated : m));
  return {
    manifests: out,
    plan: planFor(traffic.strategy, { manifestName: `replicaSet ${nameOf(target)}`, namespace }),
  };
}

function annotateAndLabel<M extends TrafficManifest>(
  m: M,
  references: readonly string[],
  added: Record<string, string>,
): M {
  const spec = record(m.spec);
  const template = record(spec.template);
  const templateMetadata = record(template.metadata);
  const annotations = { ...annotationsOf(m), [LOAD_BALANCERS_ANNOTATION]: JSON.stringify(references) };
  const labels = { ...record(templateMetadata.labels), ...added };
  return {
    ...m,
    metadata: { ...m.metadata, annotations },
    spec: { ...spec, template: { ...template, metadata: { ...templateMetadata, labels } } },
  };
}
