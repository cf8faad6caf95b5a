// The plan of a `deploy`: each manifest placed, checked and written exactly as the deploy would
// (apply-manifests.ts: placeManifest, checkNamespace, writeManifest), but as a server-side dry run.
// The order is the deploy's (Namespaces, CRDs, the rest). Nothing is written, so what this same
// deploy would create first is not there for the dry run: an object in a Namespace the deploy creates,
// or a custom resource whose CRD it creates, is shown as given and marked as not dry-run.
import type { ObjectRef } from '../../../contract/index.ts';
import { UnknownKindError } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import {
  checkNamespace,
  type PlacedManifest,
  placeManifest,
  writeManifest,
} from '../apply/apply-manifests.ts';
import { groupOf, InvalidManifestError, type Manifest, parseManifest } from '../apply/manifest.ts';
import { boundedAll } from '../bounded-all.ts';
import {
  type AccessRequest,
  dryRun,
  notDryRun,
  type ObjectDraft,
  type Planner,
  readLive,
  refusal,
  unknownKindDraft,
  writeAction,
} from '../plan/index.ts';

/** Manifests planned at once (Namespaces and CRDs go first, one by one, as the deploy writes them). */
const CONCURRENCY = 8;

/** A kind this deploy's own CRDs would add: what its custom resources need before they can be dry-run. */
interface NewKind {
  crd: string;
  resource: string;
  namespaced: boolean;
}

/** What this deploy creates that later manifests depend on. */
interface Created {
  namespaces: Set<string>;
  kinds: Map<string, NewKind>;
}

const rank = (m: Manifest) => (m.kind === 'Namespace' ? 0 : m.kind === 'CustomResourceDefinition' ? 1 : 2);

const record = (v: unknown) => (isRecord(v) ? v : {});

function refOf(manifest: Manifest, namespaced = true): ObjectRef {
  const { namespace, name } = manifest.metadata;
  return {
    apiVersion: manifest.apiVersion,
    kind: manifest.kind,
    ...(namespaced && namespace !== undefined ? { namespace } : {}),
    name,
  };
}

/** The writes the deploy would make of this object, by how it is written and whether it exists. */
function accessOf(placed: PlacedManifest, exists: boolean): AccessRequest[] {
  const { resource, manifest, policy, strategy } = placed;
  const at = {
    group: resource.group,
    resource: resource.resource,
    ...(resource.namespaced ? { namespace: manifest.metadata.namespace } : {}),
  };
  const named = { ...at, name: manifest.metadata.name };
  const create = { verb: 'create', ...at };
  if (strategy === 'replace') return [exists ? { verb: 'update', ...named } : create];
  if (strategy === 'recreate') return exists ? [{ verb: 'delete', ...named }, create] : [create];
  // Manifest defaults come from a dry-run create, which the authorizer checks as a create.
  const defaults = policy.serverSide && policy.manifestDefaults && exists ? [create] : [];
  if (policy.serverSide) return [...(exists ? [] : [create]), { verb: 'patch', ...named }, ...defaults];
  return [exists ? { verb: 'patch', ...named } : create];
}

/** A custom resource of a kind this deploy's own CRD adds: placed from the CRD, not dry-run. */
function newKindDraft(cluster: AccountCluster, manifest: Manifest, kind: NewKind): ObjectDraft {
  const namespace = kind.namespaced ? (manifest.metadata.namespace ?? cluster.defaultNamespace) : undefined;
  const given = { ...manifest, metadata: { ...manifest.metadata, ...(namespace ? { namespace } : {}) } };
  const group = groupOf(manifest.apiVersion);
  return {
    ref: { ...refOf(manifest, false), ...(namespace ? { namespace } : {}) },
    action: 'create',
    live: null,
    planned: given,
    dryRun: notDryRun(`its CustomResourceDefinition ${kind.crd} is created by this deploy`),
    access: [
      { verb: 'create', group, resource: kind.resource, namespace },
      { verb: 'patch', group, resource: kind.resource, namespace, name: manifest.metadata.name },
    ],
    unknown: [
      `whether the API server accepts it: its CustomResourceDefinition ${kind.crd} does not exist until this deploy creates it, so it was not dry-run (planned is the manifest as given)`,
    ],
    given,
  };
}

async function planManifest(
  cluster: AccountCluster,
  given: Manifest,
  i: number,
  options: { force: boolean; signal: AbortSignal },
  created: Created,
): Promise<ObjectDraft> {
  const newKind = created.kinds.get(`${groupOf(given.apiVersion)}/${given.kind}`);
  if (newKind !== undefined) return newKindDraft(cluster, given, newKind);
  let placed: PlacedManifest;
  try {
    placed = await placeManifest(cluster, given, options.signal);
  } catch (error) {
    if (error instanceof UnknownKindError) return { ...unknownKindDraft(refOf(given), error), given };
    throw error;
  }
  const { manifest, resource } = placed;
  const ref = refOf(manifest, resource.namespaced);
  const live = await readLive(cluster, resource, manifest.metadata, options.signal);
  const base = { ref, live, access: accessOf(placed, live !== null), given: manifest };
  try {
    checkNamespace(cluster, manifest, `manifests[${i}].metadata.namespace`);
  } catch (error) {
    if (!(error instanceof InvalidManifestError)) throw error;
    return {
      ...base,
      action: writeAction(live, null),
      planned: null,
      dryRun: refusal(error) ?? { allowed: false },
      unknown: [],
    };
  }
  const namespace = resource.namespaced ? manifest.metadata.namespace : undefined;
  if (namespace !== undefined && created.namespaces.has(namespace)) {
    return {
      ...base,
      action: 'create',
      planned: manifest,
      dryRun: notDryRun(`its Namespace ${namespace} is created by this deploy`),
      unknown: [
        `whether the API server accepts it: its Namespace ${namespace} does not exist until this deploy creates it, so it was not dry-run (planned is the manifest as given)`,
      ],
    };
  }
  const { planned, verdict } = await dryRun(() =>
    writeManifest(cluster, placed, { ...options, crdTimeoutMs: 0, dryRun: true }),
  );
  const recreated = placed.strategy === 'recreate' && live !== null;
  return {
    ...base,
    action: recreated ? 'update' : writeAction(live, planned),
    planned,
    dryRun: verdict,
    unknown: recreated
      ? ['recreated: deleted, then created again; the dry run created it under a stand-in name (a new uid)']
      : [],
  };
}

/** Records what a Namespace or CRD the deploy creates (absent now) makes possible for later manifests. */
function noteCreated(draft: ObjectDraft, manifest: Manifest, created: Created): void {
  if (draft.live !== null || !draft.dryRun.allowed) return;
  if (manifest.kind === 'Namespace') created.namespaces.add(manifest.metadata.name);
  if (manifest.kind === 'CustomResourceDefinition') {
    const spec = record(manifest.spec);
    const names = record(spec.names);
    if (
      typeof spec.group === 'string' &&
      typeof names.kind === 'string' &&
      typeof names.plural === 'string'
    ) {
      created.kinds.set(`${spec.group}/${names.kind}`, {
        crd: manifest.metadata.name,
        resource: names.plural,
        namespaced: spec.scope === 'Namespaced',
      });
    }
  }
}

export const deployPlanner: Planner<'deploy'> = async (payload, { cluster, signal }) => {
  // A manifest that is not an object fails the plan as it fails the deploy: there is nothing to show.
  const manifests = payload.manifests.map((m, i) => ({ m: parseManifest(m, i), i }));
  const ordered = manifests.sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i);
  const created: Created = { namespaces: new Set(), kinds: new Map() };
  const options = { force: payload.force, signal };
  const objects: ObjectDraft[] = [];
  const first = ordered.filter(({ m }) => rank(m) < 2);
  for (const { m, i } of first) {
    const draft = await planManifest(cluster, m, i, options, created);
    noteCreated(draft, m, created);
    objects.push(draft);
  }
  const rest = ordered.filter(({ m }) => rank(m) === 2);
  objects.push(
    ...(await boundedAll(rest, CONCURRENCY, ({ m, i }) => planManifest(cluster, m, i, options, created))),
  );
  return { objects, unknown: [] };
};
