// Binding artifacts into the manifests of one deploy, as the API we mirror does it: manifests are
// taken in deploy order (ConfigMaps and Secrets before workloads, workloads before autoscalers), each
// is bound with the artifacts known so far, and then adds the artifact it creates itself (its
// versioned name), which replaces a given artifact of the same type, name and namespace. So a
// Deployment mounting ConfigMap `settings` deployed beside it mounts `settings-v003`, whatever order
// the request listed them in. An orchestrator/* artifact binds only into manifests in its namespace
// (`location`) and, when it names one (`metadata.account`), its account; other types bind anywhere.
// Pure: manifests are copied, never changed in place.
import { isClusterScopedKind } from '../../../../lib/cluster-scoped-kinds.ts';
import { isRecord } from '../../../../lib/is-record.ts';
import { spinnakerKind } from '../../../caching/index.ts';
import {
  type Artifact,
  bindingKey,
  canonicalType,
  isOrchestratorType,
  ORCHESTRATOR_PREFIX,
} from './artifact.ts';
import { replacersFor } from './replacers.ts';

/** What binding reads of a manifest; the rest of it is carried through untouched. */
export interface ManifestLike {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; generateName?: string; namespace?: string };
}

export interface BindOptions<M extends ManifestLike = ManifestLike> {
  /** The account deployed to: orchestrator/* artifacts of another account do not bind. */
  account: string;
  /** The namespace a namespaced manifest without one goes to. */
  defaultNamespace?: string;
  /**
   * The version a manifest is deployed as (`3` for `settings-v003`), undefined when unversioned.
   * Called with the manifest once bound (a new image makes a new version), before its name carries
   * the version.
   */
  versionOf?: (manifest: M) => number | undefined;
}

export interface BindResult<M> {
  /** The manifests in the order given, with artifacts bound. */
  manifests: M[];
  /** Each artifact that replaced at least one value, once. */
  boundArtifacts: Artifact[];
  /** The artifact each manifest creates, in the order given. */
  createdArtifacts: Artifact[];
}

/** Deploy order as far as binding cares: what is mounted, what runs, what scales what runs. */
function bindingRank(manifest: ManifestLike): number {
  if (manifest.kind === 'ConfigMap' || manifest.kind === 'Secret') return 0;
  return manifest.kind === 'HorizontalPodAutoscaler' ? 2 : 1;
}

function namespaceOf(manifest: ManifestLike, options: { defaultNamespace?: string }): string {
  if (isClusterScopedKind(manifest.kind)) return '';
  return manifest.metadata.namespace ?? options.defaultNamespace ?? '';
}

/** `v003`, as versioned names and artifact versions spell it. */
export function versionText(version: number): string {
  return `v${String(version).padStart(3, '0')}`;
}

/** The artifact a deployed manifest is: its kind, its unversioned name, and the name it gets. */
export function createdArtifact(
  manifest: ManifestLike,
  account: string,
  namespace: string,
  version?: number,
) {
  const name = manifest.metadata.name ?? manifest.metadata.generateName ?? '';
  const versioned = version === undefined ? '' : versionText(version);
  return {
    type: `${ORCHESTRATOR_PREFIX}${spinnakerKind(manifest.apiVersion, manifest.kind)}`,
    name,
    location: namespace,
    version: versioned,
    reference: versioned === '' ? name : `${name}-${versioned}`,
    metadata: { account },
    customKind: false,
  } satisfies Artifact;
}

function bindsHere(artifact: Artifact, namespace: string, account: string): boolean {
  if (canonicalType(artifact) === '' || !artifact.name || typeof artifact.reference !== 'string')
    return false;
  if (!isOrchestratorType(artifact)) return true;
  const artifactAccount = artifact.metadata?.account;
  const accountMatches =
    typeof artifactAccount !== 'string' || artifactAccount === '' || artifactAccount === account;
  return (artifact.location ?? '') === namespace && accountMatches;
}

/** One manifest, copied, with every matching value replaced; and the artifacts that replaced one. */
function bindOne<M extends ManifestLike>(manifest: M, candidates: readonly Artifact[]) {
  const copy = structuredClone(manifest);
  const bound: Artifact[] = [];
  if (!isRecord(copy)) return { manifest: copy, bound };
  for (const replacer of replacersFor(manifest.apiVersion, manifest.kind)) {
    const slots = replacer.slots(copy);
    for (const artifact of candidates) {
      if (canonicalType(artifact) !== replacer.type) continue;
      let replaced = false;
      for (const { holder, key } of slots) {
        const value = holder[key];
        if (typeof value !== 'string' || replacer.nameOf(value) !== artifact.name) continue;
        holder[key] = artifact.reference;
        replaced = true;
      }
      if (replaced) bound.push(artifact);
    }
  }
  return { manifest: copy, bound };
}

/**
 * Binds `artifacts` (earlier ones win over later ones of the same type, name and namespace) and the
 * artifacts the manifests create into the manifests.
 */
export function bindArtifacts<M extends ManifestLike>(
  manifests: readonly M[],
  artifacts: readonly Artifact[],
  options: BindOptions<M>,
): BindResult<M> {
  const known = new Map<string, Artifact>();
  for (const artifact of artifacts)
    if (!known.has(bindingKey(artifact))) known.set(bindingKey(artifact), artifact);
  const order = manifests.map((m, i) => ({ m, i })).sort((a, b) => bindingRank(a.m) - bindingRank(b.m));
  const out = [...manifests];
  const created: Artifact[] = [];
  const bound = new Set<Artifact>();
  for (const { m, i } of order) {
    const namespace = namespaceOf(m, options);
    const candidates = [...known.values()].filter((a) => bindsHere(a, namespace, options.account));
    const result = bindOne(m, candidates);
    out[i] = result.manifest;
    for (const artifact of result.bound) bound.add(artifact);
    const own = createdArtifact(m, options.account, namespace, options.versionOf?.(result.manifest));
    created[i] = own;
    known.set(bindingKey(own), own);
  }
  return { manifests: out, boundArtifacts: [...bound], createdArtifacts: created };
}
