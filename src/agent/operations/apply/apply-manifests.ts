// Applies a set of manifests to one account's cluster: Namespaces first, then CRDs (waiting until each
// is Established, so custom resources in the same set resolve), then the rest in the given order.
// Each manifest goes server-side or client-side as the apply policy decides.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ClusterResources,
  type KubeHttp,
  loadPatchSchema,
  type PatchSchema,
  resourcePath,
} from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountConfig, AgentConfig } from '../../config/index.ts';
import { resolveApplyPolicy } from './apply-policy.ts';
import { clientSideApply } from './client-side-apply.ts';
import { describeManifest, groupOf, type Manifest, parseManifest } from './manifest.ts';
import { serverSideApply } from './server-side-apply.ts';

export interface ApplyTarget {
  http: KubeHttp;
  resources: ClusterResources;
  config: AgentConfig;
  account: AccountConfig;
  /** Patch schemas by `group/version/kind`, kept for the life of the account. */
  patchSchemas: Map<string, Promise<PatchSchema | undefined>>;
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
}

const rank = (m: Manifest) => (m.kind === 'Namespace' ? 0 : m.kind === 'CustomResourceDefinition' ? 1 : 2);

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

export async function applyManifests(
  target: ApplyTarget,
  raw: unknown[],
  options: ApplyOptions,
): Promise<AppliedObject[]> {
  // Validate everything before changing anything.
  const manifests = raw.map((m, i) => parseManifest(m, i));
  const ordered = manifests.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i);
  const applied: AppliedObject[] = [];
  for (const { m: manifest } of ordered) {
    const resource = await target.resources.resolve(manifest.apiVersion, manifest.kind, options.signal);
    const group = groupOf(manifest.apiVersion);
    const policy = resolveApplyPolicy(target.config, target.account, {
      kind: manifest.kind,
      group,
      annotations: manifest.metadata.annotations ?? {},
    });
    const key = `${group}/${resource.version}/${manifest.kind}`;
    const schema = () => {
      let cached = target.patchSchemas.get(key);
      if (cached === undefined) {
        cached = loadPatchSchema(target.http, group, resource.version, manifest.kind, options.signal);
        target.patchSchemas.set(key, cached);
      }
      return cached;
    };
    // Each request of either apply mode is retried by the account's KubeHttp (orchestrator.retries).
    const result = policy.serverSide
      ? await serverSideApply(target.http, resource, manifest, {
          ...policy,
          force: options.force,
          signal: options.signal,
        })
      : await clientSideApply(target.http, resource, manifest, schema, options.signal);
    const metadata = isRecord(result) && isRecord(result.metadata) ? result.metadata : {};
    applied.push({
      apiVersion: manifest.apiVersion,
      kind: manifest.kind,
      ...(resource.namespaced && manifest.metadata.namespace
        ? { namespace: manifest.metadata.namespace }
        : {}),
      name: manifest.metadata.name,
      mode: policy.serverSide ? 'server-side' : 'client-side',
      uid: typeof metadata.uid === 'string' ? metadata.uid : '',
      resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '',
    });
    if (manifest.kind === 'CustomResourceDefinition') await waitEstablished(target, manifest, options);
  }
  return applied;
}
