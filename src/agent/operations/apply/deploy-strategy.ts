// How one manifest is written, as Spinnaker's `strategy.spinnaker.io/*` annotations ask (clouddriver's
// KubernetesManifestStrategy): applied (the default), `recreate` (deleted, gone, then applied: for
// changes the API server refuses in place, such as a Job's template) or `replace` (written whole with
// PUT, created when absent: for objects too large for the last-applied annotation).
// `server-side-apply` is read by the apply policy (apply-policy.ts). A plan sends the same writes as
// server-side dry runs (`dryRun`), which write nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiResource, KubeApiError, type KubeHttp, resourcePath } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { describeManifest, type Manifest } from './manifest.ts';

export const RECREATE_ANNOTATION = 'strategy.spinnaker.io/recreate';
export const REPLACE_ANNOTATION = 'strategy.spinnaker.io/replace';
export const SPINNAKER_SSA_ANNOTATION = 'strategy.spinnaker.io/server-side-apply';

export type DeployStrategy = 'apply' | 'recreate' | 'replace';

const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true';

/** The manifest's write strategy; `recreate` and `replace` together are refused by cloudctl first. */
export function deployStrategy(annotations: Record<string, string>): DeployStrategy {
  if (isTrue(annotations[RECREATE_ANNOTATION])) return 'recreate';
  if (isTrue(annotations[REPLACE_ANNOTATION])) return 'replace';
  return 'apply';
}

/** Deletes the object (if it exists) and waits until the API server no longer has it. */
export async function deleteAndWait(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const path = resourcePath(resource, manifest.metadata.namespace, manifest.metadata.name);
  try {
    await http.request({
      verb: 'delete',
      method: 'DELETE',
      path,
      // Foreground: a recreated workload must not meet the pods of its previous self.
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
      signal,
    });
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return;
    throw error;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await http.request({ verb: 'get', method: 'GET', path, signal });
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return;
      throw error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${describeManifest(manifest)} still exists ${timeoutMs} ms after its delete (recreate)`,
      );
    }
    await sleep(200, undefined, { signal });
  }
}

const DRY_RUN = { dryRun: 'All' };

/**
 * A recreate as a dry run: the delete (when the object exists) and the create. The real create
 * follows the delete, which a dry run cannot wait for, so an object that exists is created under a
 * stand-in name (as completeWithDefaults does) and the answer given back its own name.
 */
export async function recreateDryRun(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  signal?: AbortSignal,
): Promise<unknown> {
  const { namespace, name } = manifest.metadata;
  let exists = true;
  try {
    await http.request({
      verb: 'delete',
      method: 'DELETE',
      path: resourcePath(resource, namespace, name),
      // A DELETE with a body takes its options from the body alone, the dry run too.
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', dryRun: ['All'] },
      signal,
    });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    exists = false;
  }
  const standIn = `${name.slice(0, 200)}-orch-agent-recreate`;
  const created = await http.request({
    verb: 'create',
    method: 'POST',
    path: resourcePath(resource, namespace),
    query: DRY_RUN,
    body: exists ? { ...manifest, metadata: { ...manifest.metadata, name: standIn } } : manifest,
    signal,
  });
  const body = isRecord(created.body) ? created.body : {};
  return { ...body, metadata: { ...(isRecord(body.metadata) ? body.metadata : {}), name } };
}

/** Writes the manifest whole (PUT, over the live resourceVersion), or creates it when absent. */
export async function replaceObject(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  signal?: AbortSignal,
  dryRun = false,
): Promise<unknown> {
  const path = resourcePath(resource, manifest.metadata.namespace, manifest.metadata.name);
  const query = dryRun ? DRY_RUN : undefined;
  let live: unknown;
  try {
    live = (await http.request({ verb: 'get', method: 'GET', path, signal })).body;
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    const created = await http.request({
      verb: 'create',
      method: 'POST',
      path: resourcePath(resource, manifest.metadata.namespace),
      query,
      body: manifest,
      signal,
    });
    return created.body;
  }
  const resourceVersion =
    isRecord(live) && isRecord(live.metadata) ? live.metadata.resourceVersion : undefined;
  const replaced = await http.request({
    verb: 'update',
    method: 'PUT',
    path,
    query,
    body: { ...manifest, metadata: { ...manifest.metadata, resourceVersion } },
    signal,
  });
  return replaced.body;
}
