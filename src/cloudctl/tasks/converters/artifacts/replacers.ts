// Where each artifact type binds, per kind, as the API we mirror binds them: a docker/image into
// the containers and init containers of every pod template (`..spec.template.spec`, so a CronJob's
// `spec.jobTemplate.spec.template.spec` too) and into a bare Pod's containers; a ConfigMap or
// Secret into a pod template's volumes, projected volumes, `envFrom` and `env[].valueFrom`; a
// Deployment or ReplicaSet into a HorizontalPodAutoscaler's `scaleTargetRef`. Every other kind,
// custom resources included, binds nothing (the API we mirror has no rule for them either).
import { isRecord } from '../../../../lib/is-record.ts';
import { CONFIG_MAP, DEPLOYMENT, DOCKER_IMAGE, REPLICA_SET, SECRET } from './artifact.ts';

type Doc = Record<string, unknown>;

/** A string field an artifact may replace: `holder[key]`. */
export interface Slot {
  holder: Doc;
  key: string;
}

export interface Replacer {
  /** The canonical artifact type it binds. */
  type: string;
  slots(manifest: Doc): Slot[];
  /** The name a value in a slot stands for; an artifact binds where its name equals it. */
  nameOf(value: string): string;
}

const records = (value: unknown): Doc[] => (Array.isArray(value) ? value.filter(isRecord) : []);

function at(value: unknown, ...keys: string[]): Doc | undefined {
  let node = value;
  for (const key of keys) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : undefined;
}

const slot = (holder: Doc | undefined, key: string): Slot[] =>
  holder !== undefined && typeof holder[key] === 'string' ? [{ holder, key }] : [];

/** Every pod spec under a `spec.template.spec`, at any depth (`$..spec.template.spec`). */
function podTemplateSpecs(manifest: Doc): Doc[] {
  const found: Doc[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isRecord(node)) return;
    const spec = at(node, 'spec', 'template', 'spec');
    if (spec !== undefined) found.push(spec);
    for (const value of Object.values(node)) visit(value);
  };
  visit(manifest);
  return found;
}

const containersOf = (podSpec: Doc): Doc[] => [
  ...records(podSpec.containers),
  ...records(podSpec.initContainers),
];

/**
 * An image reference without its digest (`@sha256:...`) or tag (`:1.25`). A colon before the last
 * slash is a registry port, not a tag, so `registry:5000/app` stays whole.
 */
export function imageName(reference: string): string {
  const at = reference.indexOf('@');
  if (at >= 0) return reference.slice(0, at);
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}

const same = (value: string) => value;

/** A rule over every pod template's pod specs. */
const inPodTemplates = (type: string, find: (podSpec: Doc) => Slot[], nameOf = same): Replacer => ({
  type,
  nameOf,
  slots: (manifest) => podTemplateSpecs(manifest).flatMap(find),
});

const volumes = (podSpec: Doc) => records(podSpec.volumes);
const projectedSources = (podSpec: Doc) =>
  volumes(podSpec).flatMap((v) => records(at(v, 'projected')?.sources));
const envVars = (podSpec: Doc) => containersOf(podSpec).flatMap((c) => records(c.env));
const envFroms = (podSpec: Doc) => containersOf(podSpec).flatMap((c) => records(c.envFrom));

const POD_TEMPLATE_REPLACERS: readonly Replacer[] = [
  inPodTemplates(DOCKER_IMAGE, (ps) => containersOf(ps).flatMap((c) => slot(c, 'image')), imageName),
  inPodTemplates(CONFIG_MAP, (ps) => volumes(ps).flatMap((v) => slot(at(v, 'configMap'), 'name'))),
  inPodTemplates(SECRET, (ps) => volumes(ps).flatMap((v) => slot(at(v, 'secret'), 'secretName'))),
  inPodTemplates(CONFIG_MAP, (ps) => projectedSources(ps).flatMap((s) => slot(at(s, 'configMap'), 'name'))),
  inPodTemplates(SECRET, (ps) => projectedSources(ps).flatMap((s) => slot(at(s, 'secret'), 'name'))),
  inPodTemplates(CONFIG_MAP, (ps) => envFroms(ps).flatMap((e) => slot(at(e, 'configMapRef'), 'name'))),
  inPodTemplates(SECRET, (ps) => envFroms(ps).flatMap((e) => slot(at(e, 'secretRef'), 'name'))),
  inPodTemplates(CONFIG_MAP, (ps) =>
    envVars(ps).flatMap((e) => slot(at(e, 'valueFrom', 'configMapKeyRef'), 'name')),
  ),
  inPodTemplates(SECRET, (ps) =>
    envVars(ps).flatMap((e) => slot(at(e, 'valueFrom', 'secretKeyRef'), 'name')),
  ),
];

/** A bare Pod binds images into its containers only, as the API we mirror does. */
const POD_REPLACERS: readonly Replacer[] = [
  {
    type: DOCKER_IMAGE,
    nameOf: same,
    slots: (manifest) => records(at(manifest, 'spec')?.containers).flatMap((c) => slot(c, 'image')),
  },
];

const scaleTarget = (type: string, kinds: readonly string[]): Replacer => ({
  type,
  nameOf: same,
  slots: (manifest) => {
    const ref = at(manifest, 'spec', 'scaleTargetRef');
    return ref !== undefined && kinds.includes(String(ref.kind)) ? slot(ref, 'name') : [];
  },
});

const HPA_REPLACERS: readonly Replacer[] = [
  scaleTarget(DEPLOYMENT, ['Deployment', 'deployment']),
  scaleTarget(REPLICA_SET, ['ReplicaSet', 'replicaSet']),
];

/** The built-in kinds that bind, by API group and kind (`apps Deployment`). */
const REPLACERS_BY_KIND: ReadonlyMap<string, readonly Replacer[]> = new Map([
  ...['apps', 'extensions'].flatMap((g) =>
    ['Deployment', 'ReplicaSet', 'DaemonSet'].map((k) => [`${g} ${k}`, POD_TEMPLATE_REPLACERS] as const),
  ),
  ['apps StatefulSet', POD_TEMPLATE_REPLACERS],
  ['batch Job', POD_TEMPLATE_REPLACERS],
  ['batch CronJob', POD_TEMPLATE_REPLACERS],
  [' Pod', POD_REPLACERS],
  ['autoscaling HorizontalPodAutoscaler', HPA_REPLACERS],
]);

export function apiGroup(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
}

/** The rules for a manifest's kind; none for kinds that bind nothing. */
export function replacersFor(apiVersion: string, kind: string): readonly Replacer[] {
  return REPLACERS_BY_KIND.get(`${apiGroup(apiVersion)} ${kind}`) ?? [];
}
