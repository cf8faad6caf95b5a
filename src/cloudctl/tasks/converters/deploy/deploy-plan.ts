// A deployManifest request turned into the manifests the agent applies, as Spinnaker's Kubernetes
// provider prepares them (clouddriver's KubernetesDeployManifestOperation): lists expanded, refused
// fields and strategy annotations checked, each manifest placed in its namespace, label selectors
// applied, versioned kinds given their next version (or the one already holding the same content),
// replicas taken from the running version when `use-source-capacity` says so, and Spinnaker's
// moniker, artifact annotations and labels written. Reads of the cluster go through the agent.
import { isRecord } from '../../../../lib/is-record.ts';
import { spinnakerKind } from '../../../caching/index.ts';
import { type ConverterContext, type KubeObject, PayloadError } from '../converter.ts';
import { type DeployRequest, type Manifest, manifestSchema, refuseUnsupported } from './deploy-request.ts';
import { matchesSelectors } from './label-selectors.ts';
import { placeManifest } from './manifest-placement.ts';
import {
  CONTENT_HASH_ANNOTATION,
  chooseVersion,
  contentHash,
  isVersioned,
  type PriorVersion,
  priorVersions,
  versionedName,
  versionLabel,
} from './resource-versioner.ts';
import {
  type DeployedArtifact,
  type ManifestObject,
  type Moniker,
  withSpinnakerMetadata,
} from './spinnaker-metadata.ts';
import { checkStrategyAnnotations, usesReplace, usesSourceCapacity } from './strategy-annotations.ts';

/** Kinds whose replicas `use-source-capacity` copies (clouddriver's CanScale handlers). */
const SCALABLE = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);
/** Namespaces and CRDs first, then what workloads mount, then the rest, as given otherwise. */
const ORDER = ['Namespace', 'CustomResourceDefinition', 'ConfigMap', 'Secret'];

export interface DeployPlan {
  manifests: ManifestObject[];
  artifacts: DeployedArtifact[];
}

function givenManifests(request: DeployRequest): Manifest[] {
  const given = request.manifests?.length ? request.manifests : request.manifest ? [request.manifest] : [];
  if (given.length === 0) throw new PayloadError('manifests', 'no manifest to deploy');
  return given.flatMap((m, index) => {
    if (m.kind !== 'List' || !Array.isArray(m.items)) return [m];
    return m.items.map((item, i) => {
      const parsed = manifestSchema.safeParse(item);
      if (!parsed.success) {
        throw new PayloadError(
          `manifests[${index}].items[${i}]`,
          `not a manifest: ${parsed.error.issues[0]?.message}`,
        );
      }
      return parsed.data;
    });
  });
}

const rank = (m: Manifest) => {
  const at = ORDER.indexOf(m.kind);
  return at === -1 ? ORDER.length : at;
};

/** The manifests the label selectors leave; refused when none is left and that was not allowed. */
function selected(request: DeployRequest, manifests: Manifest[]): Manifest[] {
  const selectors = request.labelSelectors;
  if (selectors === undefined || selectors.selectors.length === 0) return manifests;
  if (manifests.some((m) => usesReplace(m.metadata.annotations ?? {}))) {
    throw new PayloadError('labelSelectors', 'cannot be used with strategy.spinnaker.io/replace');
  }
  const kept = manifests.filter((m) => matchesSelectors(selectors, m.metadata.labels ?? {}));
  if (kept.length === 0 && !request.allowNothingSelected) {
    throw new PayloadError('labelSelectors', 'no manifest matches them (allowNothingSelected is false)');
  }
  return kept;
}

/** Lists each (kind, namespace) once per request. */
function clusterLister(context: ConverterContext, account: string) {
  const lists = new Map<string, Promise<KubeObject[]>>();
  return (manifest: Manifest): Promise<KubeObject[]> => {
    const namespace = manifest.metadata.namespace ?? '';
    const key = `${manifest.apiVersion}/${manifest.kind}/${namespace}`;
    let list = lists.get(key);
    if (list === undefined) {
      list = context.cluster.list(account, {
        apiVersion: manifest.apiVersion,
        kind: manifest.kind,
        namespace,
      });
      lists.set(key, list);
    }
    return list;
  };
}

function replicasOf(object: KubeObject | undefined): number | undefined {
  const spec = object !== undefined && isRecord(object.spec) ? object.spec : undefined;
  return typeof spec?.replicas === 'number' ? spec.replicas : undefined;
}

/** `use-source-capacity`: the replicas of the running object (its newest version when versioned). */
function withSourceCapacity(manifest: Manifest, base: string, objects: KubeObject[], priors: PriorVersion[]) {
  if (!SCALABLE.has(manifest.kind) || !usesSourceCapacity(manifest.metadata.annotations ?? {}))
    return manifest;
  const running =
    priors.at(-1)?.object ?? objects.find((o) => isRecord(o.metadata) && o.metadata.name === base);
  const replicas = replicasOf(running);
  if (replicas === undefined) return manifest;
  return { ...manifest, spec: { ...(isRecord(manifest.spec) ? manifest.spec : {}), replicas } };
}

async function planOne(
  manifest: Manifest,
  request: DeployRequest,
  list: (m: Manifest) => Promise<KubeObject[]>,
): Promise<{ manifest: ManifestObject; artifact: DeployedArtifact }> {
  const annotations = manifest.metadata.annotations ?? {};
  const base = manifest.metadata.name ?? manifest.metadata.generateName ?? '';
  const versioned = manifest.metadata.name !== undefined && isVersioned(manifest.kind, annotations);
  const needsCluster = versioned || (SCALABLE.has(manifest.kind) && usesSourceCapacity(annotations));
  const objects = needsCluster ? await list(manifest) : [];
  const priors = versioned ? priorVersions(base, objects) : [];
  const sized = withSourceCapacity(manifest, base, objects, priors) as ManifestObject;
  const hash = contentHash(sized);
  const version = versioned ? chooseVersion(hash, priors).version : undefined;
  const kind = spinnakerKind(manifest.apiVersion, manifest.kind);
  const artifact: DeployedArtifact = {
    type: `orchestrator/${kind}`,
    name: base,
    location: manifest.metadata.namespace ?? '',
    version: version === undefined ? '' : versionLabel(version),
    reference: version === undefined ? (manifest.metadata.name ?? '') : versionedName(base, version),
  };
  const requested = request.moniker;
  const moniker: Moniker | undefined =
    requested?.app === undefined
      ? undefined
      : {
          app: requested.app,
          cluster: requested.cluster ?? `${kind} ${base}`,
          stack: requested.stack,
          detail: requested.detail,
          sequence: version ?? requested.sequence,
        };
  const hashed = versioned
    ? {
        ...sized,
        metadata: { ...sized.metadata, annotations: { ...annotations, [CONTENT_HASH_ANNOTATION]: hash } },
      }
    : sized;
  const named = withSpinnakerMetadata(hashed, moniker, artifact, {
    skipSpecTemplateLabels: request.skipSpecTemplateLabels,
  });
  return { manifest: named, artifact };
}

export async function planDeploy(request: DeployRequest, context: ConverterContext): Promise<DeployPlan> {
  const given = givenManifests(request);
  refuseUnsupported(request, given);
  for (const [i, m] of given.entries()) {
    checkStrategyAnnotations(m.metadata.annotations ?? {}, `manifests[${i}].metadata.annotations`);
  }
  const description = await context.cluster.describe(request.account);
  const override = request.namespaceOverride?.trim() || undefined;
  const placed = given.map((m, i) =>
    placeManifest(m, override, { name: request.account, description }, `manifests[${i}]`),
  );
  const ordered = selected(request, placed)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map(({ m }) => m);
  const list = clusterLister(context, request.account);
  const planned = [];
  for (const manifest of ordered) planned.push(await planOne(manifest, request, list));
  return { manifests: planned.map((p) => p.manifest), artifacts: planned.map((p) => p.artifact) };
}
