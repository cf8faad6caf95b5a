// Applies a set of manifests to one account's cluster in phases, each phase's writes at once (at most
// WRITE_CONCURRENCY in flight) and each phase only after the one before has settled (write-phases.ts):
// Namespaces, then CRDs (waited for until Established, so custom resources in the same set resolve),
// then what other objects name at admission or start (ServiceAccounts, Roles, ConfigMaps, Secrets, ...),
// then everything else. A name given twice is written again only after its first write, so the later
// manifest still wins. The result lists the objects as before: Namespaces, CRDs, then the given order.
// Each manifest goes server-side or client-side as the apply policy decides, or is recreated or
// replaced as its strategy annotations ask. A namespaced manifest without a namespace goes to the
// account's default namespace; one outside the account's namespaces is refused before any write.
// A plan places and writes each manifest the same way (placeManifest, writeManifest) with `dryRun`.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExpectedVersion } from '../../../contract/index.ts';
import {
  type ApiResource,
  type ClusterResources,
  type KubeHttp,
  loadPatchSchema,
  type PatchSchema,
  resourcePath,
} from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { namespaceAllowed } from '../../accounts/index.ts';
import type { AccountConfig, AgentConfig } from '../../config/index.ts';
import { boundedAll } from '../bounded-all.ts';
import { type ApplyPolicy, resolveApplyPolicy } from './apply-policy.ts';
import { clientSideApply } from './client-side-apply.ts';
import {
  type DeployStrategy,
  deleteAndWait,
  deployStrategy,
  recreateDryRun,
  replaceObject,
} from './deploy-strategy.ts';
import { describeManifest, groupOf, InvalidManifestError, type Manifest, parseManifest } from './manifest.ts';
import { serverSideApply } from './server-side-apply.ts';
import { resultOrder, writePhases } from './write-phases.ts';

export interface ApplyTarget {
  http: KubeHttp;
  resources: ClusterResources;
  config: AgentConfig;
  account: AccountConfig;
  /** Patch schemas by `group/version/kind`, kept for the life of the account. */
  patchSchemas: Map<string, Promise<PatchSchema | undefined>>;
  /** Where namespaced manifests without a namespace go. */
  defaultNamespace: string;
}

export interface AppliedObject {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  mode: 'server-side' | 'client-side';
  uid: string;
  resourceVersion: string;
}

export interface ApplyOptions {
  force: boolean;
  signal?: AbortSignal;
  /** How long to wait for a CRD to be Established. */
  crdTimeoutMs: number;
  /** Every write a server-side dry run (`dryRun=All`): nothing is stored, nothing waited for. */
  dryRun?: boolean;
  /** The versions a plan saw; a server-side apply of one of these objects applies onto that version only. */
  expect?: ReadonlyArray<ExpectedVersion> | undefined;
}

/** A manifest where it will go, how it is written, and the resource it is. */
export interface PlacedManifest {
  manifest: Manifest;
  resource: ApiResource;
  policy: ApplyPolicy;
  strategy: DeployStrategy;
}

function established(crd: unknown): boolean {
  const conditions =
    isRecord(crd) && isRecord(crd.status) && Array.isArray(crd.status.conditions)
      ? crd.status.conditions
      : [];
  return conditions.some((c) => isRecord(c) && c.type === 'Established' && c.status === 'True');
}

async function waitEstablished(target: ApplyTarget, manifest: Manifest, options: ApplyOptions) {
  const resource = await target.resources.resolve(manifest.apiVersion, manifest.kind, options.signal);
  const path = resourcePath(resource, undefined, manifest.metadata.name);
  const deadline = Date.now() + options.crdTimeoutMs;
  for (;;) {
    const crd = await target.http.request({ verb: 'get', method: 'GET', path, signal: options.signal });
    if (established(crd.body)) break;
    if (Date.now() > deadline)
      throw new Error(`${describeManifest(manifest)} not Established within ${options.crdTimeoutMs} ms`);
    await sleep(200, undefined, { signal: options.signal });
  }
  target.resources.refresh();
}

/** A manifest placed in a namespace the account may not write to; refused before anything changes. */
export function checkNamespace(target: ApplyTarget, manifest: Manifest, path: string): void {
  const namespace = manifest.metadata.namespace;
  if (namespace !== undefined && !namespaceAllowed(target.account, namespace)) {
    throw new InvalidManifestError(
      path,
      `namespace '${namespace}' is not one of account ${target.account.name}'s namespaces (wrongNamespace)`,
    );
  }
}

/** The manifest placed as it will be written: its resource, namespace, apply policy and strategy. */
export async function placeManifest(
  target: ApplyTarget,
  given: Manifest,
  signal?: AbortSignal,
): Promise<PlacedManifest> {
  const resource = await target.resources.resolve(given.apiVersion, given.kind, signal);
  // A namespaced object without a namespace goes where kubectl would put it (default-namespace.ts).
  const manifest =
    resource.namespaced && !given.metadata.namespace
      ? { ...given, metadata: { ...given.metadata, namespace: target.defaultNamespace } }
      : given;
  const annotations = manifest.metadata.annotations ?? {};
  const policy = resolveApplyPolicy(target.config, target.account, {
    kind: manifest.kind,
    group: groupOf(manifest.apiVersion),
    annotations,
  });
  return { manifest, resource, policy, strategy: deployStrategy(annotations) };
}

/** The resourceVersion a plan saw of this object, when it saw it present. */
function expectedVersion(placed: PlacedManifest, expect: ReadonlyArray<ExpectedVersion>): string | undefined {
  const { manifest, resource } = placed;
  const found = expect.find(
    (e) =>
      groupOf(e.apiVersion) === resource.group &&
      e.kind === manifest.kind &&
      e.name === manifest.metadata.name &&
      (!resource.namespaced || e.namespace === manifest.metadata.namespace),
  );
  return found?.resourceVersion ?? undefined;
}

/**
 * Writes one manifest as its strategy annotations ask (deploy-strategy.ts) or its policy says, and
 * answers the object as the API server left it (with `dryRun`, as it would leave it).
 */
export async function writeManifest(
  target: ApplyTarget,
  placed: PlacedManifest,
  options: ApplyOptions,
): Promise<unknown> {
  const { resource, manifest, policy, strategy } = placed;
  const dryRun = options.dryRun === true;
  if (strategy === 'replace') return replaceObject(target.http, resource, manifest, options.signal, dryRun);
  if (strategy === 'recreate') {
    if (dryRun) return recreateDryRun(target.http, resource, manifest, options.signal);
    await deleteAndWait(target.http, resource, manifest, options.crdTimeoutMs, options.signal);
  }
  const schema = () => {
    const key = `${groupOf(manifest.apiVersion)}/${resource.version}/${manifest.kind}`;
    let cached = target.patchSchemas.get(key);
    if (cached === undefined) {
      cached = loadPatchSchema(target.http, resource.group, resource.version, manifest.kind, options.signal);
      target.patchSchemas.set(key, cached);
    }
    return cached;
  };
  // Each request of either apply mode is retried by the account's KubeHttp (orchestrator.retries).
  return policy.serverSide
    ? serverSideApply(target.http, resource, manifest, {
        ...policy,
        force: options.force || policy.forceConflicts,
        signal: options.signal,
        dryRun,
        // A recreated object is new: the version a plan saw is gone by design.
        resourceVersion: strategy === 'apply' ? expectedVersion(placed, options.expect ?? []) : undefined,
      })
    : clientSideApply(target.http, resource, manifest, schema, options.signal, dryRun);
}

/** Applies one manifest (its index in the request is `i`) and says what was written. */
async function applyOne(
  target: ApplyTarget,
  given: Manifest,
  i: number,
  options: ApplyOptions,
): Promise<AppliedObject> {
  const placed = await placeManifest(target, given, options.signal);
  const { manifest, resource, policy } = placed;
  checkNamespace(target, manifest, `manifests[${i}].metadata.namespace`);
  const result = await writeManifest(target, placed, options);
  const metadata = isRecord(result) && isRecord(result.metadata) ? result.metadata : {};
  if (manifest.kind === 'CustomResourceDefinition' && options.dryRun !== true) {
    await waitEstablished(target, manifest, options);
  }
  return {
    apiVersion: manifest.apiVersion,
    kind: manifest.kind,
    ...(resource.namespaced && manifest.metadata.namespace ? { namespace: manifest.metadata.namespace } : {}),
    name: manifest.metadata.name,
    mode: policy.serverSide ? 'server-side' : 'client-side',
    uid: typeof metadata.uid === 'string' ? metadata.uid : '',
    resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '',
  };
}

/** Writes of one phase in flight at once: a deploy of a hundred objects does not open a hundred. */
const WRITE_CONCURRENCY = 8;

type Outcome = { ok: true; applied: AppliedObject } | { ok: false; error: unknown };

export async function applyManifests(
  target: ApplyTarget,
  raw: unknown[],
  options: ApplyOptions,
): Promise<AppliedObject[]> {
  // Validate everything before changing anything.
  const manifests = raw.map((m, i) => parseManifest(m, i));
  for (const [i, m] of manifests.entries()) checkNamespace(target, m, `manifests[${i}].metadata.namespace`);
  const applied = new Array<AppliedObject | undefined>(manifests.length);
  for (const phase of writePhases(manifests)) {
    // Every write of a phase settles before the first failure is reported, so a failed deploy says
    // which object failed and nothing of it is still being written when the operation ends; the
    // phases after it are not written.
    const outcomes = await boundedAll(phase, WRITE_CONCURRENCY, (i) =>
      applyOne(target, manifests[i] as Manifest, i, options).then(
        (object): Outcome => ({ ok: true, applied: object }),
        (error: unknown): Outcome => ({ ok: false, error }),
      ),
    );
    for (const [k, outcome] of outcomes.entries()) {
      if (!outcome.ok) throw outcome.error;
      applied[phase[k] as number] = outcome.applied;
    }
  }
  return resultOrder(manifests).map((i) => applied[i] as AppliedObject);
}
