// A deployManifest request turned into the manifests the agent applies, as Spinnaker's Kubernetes
// provider prepares them (clouddriver's KubernetesDeployManifestOperation): the manifests read (text,
// or an embedded artifact), lists expanded, refused fields and strategy annotations checked, each
// manifest placed in its namespace, label selectors applied, artifacts bound (../artifacts/), versioned
// kinds given their next version (or the one already holding the same content), replicas taken from
// the running version when `use-source-capacity` says so, and Spinnaker's moniker, artifact
// annotations and labels written. Reads of the cluster go through the agent, before binding.
import { isRecord } from '../../../../lib/is-record.ts';
import { spinnakerKind } from '../../../caching/index.ts';
import { type Artifact, bindDeployArtifacts, readManifestArtifact } from '../artifacts/index.ts';
import { type ConverterContext, type KubeObject, PayloadError } from '../converter.ts';
import { applyTrafficManagement, servicesToLookUp, trafficManagementOf } from '../traffic/index.ts';
import { type DeployRequest, type Manifest, manifestSchema } from './deploy-request.ts';
import { matchesSelectors } from './label-selectors.ts';
import { placeManifest } from './manifest-placement.ts';
import {
  CONTENT_HASH_ANNOTATION,
  chooseVersion,
  contentHash,
  isVersioned,
  type PriorVersion,
  priorVersions,
} from './resource-versioner.ts';
import { type ManifestObject, type Moniker, withSpinnakerMetadata } from './spinnaker-metadata.ts';
import { checkStrategyAnnotations, usesReplace, usesSourceCapacity } from './strategy-annotations.ts';

/** Kinds whose replicas `use-source-capacity` copies (clouddriver's CanScale handlers). */
const SCALABLE = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);
/** Namespaces and CRDs first, then what workloads mount, then the rest, as given otherwise. */
const ORDER = ['Namespace', 'CustomResourceDefinition', 'ConfigMap', 'Secret'];

export interface DeployPlan {
  manifests: ManifestObject[];
  boundArtifacts: Artifact[];
  createdArtifacts: Artifact[];
}

/** What the cluster holds of a manifest's name: its versions, or the object itself. */
interface Found {
  versioned: boolean;
  objects: KubeObject[];
  priors: PriorVersion[];
}

function givenManifests(request: DeployRequest): Manifest[] {
  const text = request.manifests?.length ? request.manifests : request.manifest ? [request.manifest] : [];
  const given = request.source === 'artifact' ? readManifestArtifact(request, manifestSchema) : text;
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

/** One manifest's identity within a request, whatever copies binding makes. */
const keyOf = (m: Manifest) =>
  `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name ?? m.metadata.generateName ?? ''}`;

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

/** Lists what the cluster holds for each versioned or `use-source-capacity` manifest, once per kind and namespace. */
async function readCluster(context: ConverterContext, account: string, manifests: Manifest[]) {
  const lists = new Map<string, Promise<KubeObject[]>>();
  const found = new Map<string, Found>();
  for (const manifest of manifests) {
    const annotations = manifest.metadata.annotations ?? {};
    const versioned = manifest.metadata.name !== undefined && isVersioned(manifest.kind, annotations);
    if (!versioned && !(SCALABLE.has(manifest.kind) && usesSourceCapacity(annotations))) continue;
    const namespace = manifest.metadata.namespace ?? '';
    const listKey = `${manifest.apiVersion}/${manifest.kind}/${namespace}`;
    let list = lists.get(listKey);
    if (list === undefined) {
      list = context.cluster.list(account, {
        apiVersion: manifest.apiVersion,
        kind: manifest.kind,
        namespace,
      });
      lists.set(listKey, list);
    }
    const objects = await list;
    const base = manifest.metadata.name ?? '';
    found.set(keyOf(manifest), { versioned, objects, priors: versioned ? priorVersions(base, objects) : [] });
  }
  return found;
}

function replicasOf(object: KubeObject | undefined): number | undefined {
  const spec = object !== undefined && isRecord(object.spec) ? object.spec : undefined;
  return typeof spec?.replicas === 'number' ? spec.replicas : undefined;
}

/** `use-source-capacity`: the replicas of the running object (its newest version when versioned). */
function withSourceCapacity(manifest: Manifest, found: Found | undefined): Manifest {
  if (!SCALABLE.has(manifest.kind) || !usesSourceCapacity(manifest.metadata.annotations ?? {}))
    return manifest;
  const name = manifest.metadata.name;
  const running =
    found?.priors.at(-1)?.object ??
    found?.objects.find((o) => isRecord(o.metadata) && o.metadata.name === name);
  const replicas = replicasOf(running);
  if (replicas === undefined) return manifest;
  return { ...manifest, spec: { ...(isRecord(manifest.spec) ? manifest.spec : {}), replicas } };
}

/**
 * The bound manifest, sized, named and given Spinnaker's metadata, and the hash of its final content:
 * what the next deploy of a version compares with (as clouddriver compares the last-applied), and on
 * every object the mark of one cloudctl deployed (the agent summarises its drift).
 */
function finish(
  manifest: Manifest,
  request: DeployRequest,
  artifact: Artifact,
  found: Found | undefined,
): ManifestObject {
  const base = manifest.metadata.name ?? manifest.metadata.generateName ?? '';
  const kind = spinnakerKind(manifest.apiVersion, manifest.kind);
  const version = artifact.version ? Number(artifact.version.slice(1)) : undefined;
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
  const sized = withSourceCapacity(manifest, found) as ManifestObject;
  const deployed = {
    type: artifact.type ?? '',
    name: artifact.name ?? base,
    location: artifact.location ?? '',
    version: artifact.version ?? '',
    reference: artifact.reference ?? '',
  };
  const named = withSpinnakerMetadata(sized, moniker, deployed, {
    skipSpecTemplateLabels: request.skipSpecTemplateLabels,
  });
  const annotations = { ...named.metadata.annotations, [CONTENT_HASH_ANNOTATION]: contentHash(named) };
  return { ...named, metadata: { ...named.metadata, annotations } };
}

/**
 * Traffic management (../traffic/): the load-balancers annotation and, with enableTraffic, the
 * Services' selector labels in the pod template; after versioning, as clouddriver orders it, so the
 * labels do not make a new version. Services come from the request or, as the cache saw them, the cluster.
 */
async function withTraffic(manifests: Manifest[], request: DeployRequest, context: ConverterContext) {
  const traffic = trafficManagementOf(request);
  const services = [];
  for (const { namespace, name } of servicesToLookUp(manifests, traffic)) {
    const service = await context.cache.object(request.account, 'service', namespace, name);
    if (service !== undefined) services.push(service);
  }
  return applyTrafficManagement(manifests, traffic, services).manifests;
}

export async function planDeploy(request: DeployRequest, context: ConverterContext): Promise<DeployPlan> {
  const given = givenManifests(request);
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
  const found = await readCluster(context, request.account, ordered);
  // A version is chosen from the bound manifest's content (a new image makes a new version), compared
  // with what earlier versions deployed, labels included: as in clouddriver, a ConfigMap or Secret
  // deployed again unchanged reuses its version, while a workload, whose deployed pod template carries
  // its sequence label, always takes a new one. Later manifests then bind the versioned names of
  // earlier ones (a ConfigMap into its Deployment).
  const versionOf = (bound: Manifest) => {
    const seen = found.get(keyOf(bound));
    return seen?.versioned
      ? chooseVersion(contentHash(bound as ManifestObject), seen.priors).version
      : undefined;
  };
  const bound = bindDeployArtifacts(ordered, request, {
    account: request.account,
    defaultNamespace: description.defaultNamespace,
    versionOf,
  });
  const traffic = await withTraffic(bound.manifests, request, context);
  const manifests = traffic.map((m, i) => {
    const artifact = bound.createdArtifacts[i];
    if (artifact === undefined) throw new Error(`no created artifact for manifest ${i}`);
    const seen = found.get(keyOf(m));
    return finish(m, request, artifact, seen);
  });
  return { manifests, boundArtifacts: bound.boundArtifacts, createdArtifacts: bound.createdArtifacts };
}
