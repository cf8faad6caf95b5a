// What a target applies: its manifests with the deployment's annotations on every object and the
// VENDOR_* variables in every pod template, and each Deployment turned into a ReplicaSet of its own
// version. Two versions of a workload then live side by side (canary weights by replica ratio,
// blue/green behind two Services) and the previous one stays, scaled down, for a rollback to restore.
// A version is named `<deployment>-<hash>`; the hash covers the pod template and the deployment id,
// so every deployment starts a new version, as the `replica-set-name` annotation says. Every version
// carries Spinnaker's moniker (cluster `replicaSet <deployment>`, its sequence), so the read model
// shows one cluster with its versions, and "previous" targets find the version before.
import { createHash } from 'node:crypto';
import { isClusterScopedKind } from '../../../lib/cluster-scoped-kinds.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { MONIKER } from '../../read-model/index.ts';
import type { ManifestObject } from '../deployment-file/manifest-documents.ts';

export const ANNOTATIONS = {
  application: 'deploy.vendor.io/application',
  deploymentId: 'deploy.vendor.io/deployment-id',
  environment: 'deploy.vendor.io/environment',
  replicaSetName: 'deploy.vendor.io/replica-set-name',
} as const;

/** Spinnaker's moniker sequence: every version of a workload is one cluster, `replicaSet <workload>`. */
export const MONIKER_SEQUENCE = MONIKER.sequence;

/** Labels that tie a ReplicaSet and its pods to their workload and version (selectors use them). */
export const WORKLOAD_LABEL = 'deploy.vendor.io/workload';
export const VERSION_LABEL = 'deploy.vendor.io/version';

export interface VersionContext {
  application: string;
  deploymentId: string;
  environment: string;
  /** The target's namespace override. */
  namespace: string | undefined;
}

/** A Deployment of the manifests, as the ReplicaSet of its new version. */
export interface WorkloadVersion {
  name: string;
  namespace: string;
  replicaSet: string;
  version: string;
  /** spec.replicas of the Deployment (1 when absent). */
  desired: number;
  /** The ReplicaSet object to apply; its replicas are set by the caller. */
  manifest: ManifestObject;
}

export interface VersionedManifests {
  workloads: WorkloadVersion[];
  /** Every other object, annotated, in manifest order. */
  others: ManifestObject[];
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function stringMap(value: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record(value)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

export function namespaceOf(object: ManifestObject, context: VersionContext): string {
  const own = record(object.metadata).namespace;
  return context.namespace ?? (typeof own === 'string' && own !== '' ? own : 'default');
}

function withMetadata(object: ManifestObject, annotations: Record<string, string>, context: VersionContext) {
  const metadata = record(object.metadata);
  return {
    ...object,
    metadata: {
      ...metadata,
      ...(isClusterScopedKind(String(object.kind)) ? {} : { namespace: namespaceOf(object, context) }),
      annotations: { ...stringMap(metadata.annotations), ...annotations },
    },
  };
}

/** The pod template with the VENDOR_* variables set in every container (replacing any of the same name). */
function withVendorEnv(
  template: Record<string, unknown>,
  env: Record<string, string>,
): Record<string, unknown> {
  const spec = record(template.spec);
  const addTo = (containers: unknown) =>
    Array.isArray(containers)
      ? containers.map((c) => {
          const container = record(c);
          const own = Array.isArray(container.env)
            ? container.env.filter((e) => !(isRecord(e) && typeof e.name === 'string' && e.name in env))
            : [];
          return {
            ...container,
            env: [...own, ...Object.entries(env).map(([name, value]) => ({ name, value }))],
          };
        })
      : containers;
  return {
    ...template,
    spec: {
      ...spec,
      containers: addTo(spec.containers),
      ...(spec.initContainers === undefined ? {} : { initContainers: addTo(spec.initContainers) }),
    },
  };
}

function vendorEnv(context: VersionContext, replicaSet: string | undefined): Record<string, string> {
  return {
    VENDOR_APPLICATION_NAME: context.application,
    VENDOR_DEPLOYMENT_ID: context.deploymentId,
    VENDOR_ENVIRONMENT_NAME: context.environment,
    ...(replicaSet === undefined ? {} : { VENDOR_REPLICA_SET_NAME: replicaSet }),
  };
}

function isDeployment(object: ManifestObject): boolean {
  return (
    object.kind === 'Deployment' &&
    typeof object.apiVersion === 'string' &&
    object.apiVersion.startsWith('apps/')
  );
}

function toReplicaSet(deployment: ManifestObject, context: VersionContext): WorkloadVersion {
  const metadata = record(deployment.metadata);
  const name = String(metadata.name);
  const spec = record(deployment.spec);
  const template = record(spec.template);
  const version = createHash('sha256')
    .update(JSON.stringify([context.deploymentId, template]))
    .digest('hex')
    .slice(0, 10);
  const replicaSet = `${name}-${version}`;
  const labels = { [WORKLOAD_LABEL]: name, [VERSION_LABEL]: version };
  const selector = record(spec.selector);
  const templateMetadata = record(template.metadata);
  const annotations = {
    [ANNOTATIONS.application]: context.application,
    [ANNOTATIONS.deploymentId]: context.deploymentId,
    [ANNOTATIONS.environment]: context.environment,
    [ANNOTATIONS.replicaSetName]: replicaSet,
    [MONIKER.application]: context.application,
    [MONIKER.cluster]: `replicaSet ${name}`,
  };
  const podTemplate = withVendorEnv(
    {
      ...template,
      metadata: {
        ...templateMetadata,
        labels: { ...stringMap(templateMetadata.labels), ...labels },
        annotations: { ...stringMap(templateMetadata.annotations), ...annotations },
      },
    },
    vendorEnv(context, replicaSet),
  );
  const manifest = withMetadata(
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: replicaSet,
        ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
        labels: { ...stringMap(metadata.labels), ...labels },
        annotations: stringMap(metadata.annotations),
      },
      spec: {
        replicas: 0,
        ...(spec.minReadySeconds === undefined ? {} : { minReadySeconds: spec.minReadySeconds }),
        selector: { ...selector, matchLabels: { ...stringMap(selector.matchLabels), ...labels } },
        template: podTemplate,
      },
    },
    annotations,
    context,
  );
  const replicas = spec.replicas;
  return {
    name,
    namespace: namespaceOf(deployment, context),
    replicaSet,
    version,
    desired: typeof replicas === 'number' && Number.isInteger(replicas) && replicas >= 0 ? replicas : 1,
    manifest,
  };
}

/** Pod templates of the other workload kinds get the variables too (every pod carries them). */
function withPodEnv(object: ManifestObject, env: Record<string, string>): ManifestObject {
  const spec = record(object.spec);
  if (object.kind === 'CronJob') {
    const jobTemplate = record(spec.jobTemplate);
    const jobSpec = record(jobTemplate.spec);
    if (!isRecord(jobSpec.template)) return object;
    return {
      ...object,
      spec: {
        ...spec,
        jobTemplate: { ...jobTemplate, spec: { ...jobSpec, template: withVendorEnv(jobSpec.template, env) } },
      },
    };
  }
  if (!isRecord(spec.template)) return object;
  return { ...object, spec: { ...spec, template: withVendorEnv(spec.template, env) } };
}

export function versionedManifests(
  objects: readonly ManifestObject[],
  context: VersionContext,
): VersionedManifests {
  const workloads = objects.filter(isDeployment).map((d) => toReplicaSet(d, context));
  // With one workload every object belongs to its version; with several, only their own ReplicaSets
  // can name one.
  const only = workloads.length === 1 ? workloads[0]?.replicaSet : undefined;
  const annotations = {
    [ANNOTATIONS.application]: context.application,
    [ANNOTATIONS.deploymentId]: context.deploymentId,
    [ANNOTATIONS.environment]: context.environment,
    ...(only === undefined ? {} : { [ANNOTATIONS.replicaSetName]: only }),
  };
  const others = objects
    .filter((o) => !isDeployment(o))
    .map((o) => withPodEnv(withMetadata(o, annotations, context), vendorEnv(context, only)));
  return { workloads, others };
}

/** The version's ReplicaSet with its sequence written on it and its pod template. */
export function withSequence(replicaSet: ManifestObject, sequence: number | undefined): ManifestObject {
  if (sequence === undefined) return replicaSet;
  const add = (meta: Record<string, unknown>) => ({
    ...meta,
    annotations: { ...stringMap(meta.annotations), [MONIKER_SEQUENCE]: String(sequence) },
  });
  const spec = record(replicaSet.spec);
  const template = record(spec.template);
  return {
    ...replicaSet,
    metadata: add(record(replicaSet.metadata)),
    spec: { ...spec, template: { ...template, metadata: add(record(template.metadata)) } },
  };
}

/** A Service's selector with the version label set: it then selects that version's pods only. */
export function selectVersion(service: ManifestObject, version: string): ManifestObject {
  const spec = record(service.spec);
  return {
    ...service,
    spec: { ...spec, selector: { ...stringMap(spec.selector), [VERSION_LABEL]: version } },
  };
}
