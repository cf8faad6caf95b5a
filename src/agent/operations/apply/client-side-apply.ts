// Client-side apply, kubectl's way: the manifest is stored in the
// `kubectl.kubernetes.io/last-applied-configuration` annotation, and changes are a three-way patch
// from that, the new manifest and the live object (strategic merge for built-in kinds, JSON merge
// patch for custom resources). A create that loses a race (409 AlreadyExists) turns into a patch.
// `dryRun` sends the same create or patch as a server-side dry run, which writes nothing.
import {
  type ApiResource,
  KubeApiError,
  type KubeHttp,
  type PatchSchema,
  resourcePath,
} from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { Manifest } from './manifest.ts';
import { threeWayPatch } from './three-way-patch.ts';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Built-in kinds accept strategic merge patches; custom resources only JSON merge patches. */
export function isBuiltinGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

function withLastApplied(manifest: Manifest): Manifest {
  // The stored configuration is the manifest as given, without the annotation itself.
  const { [LAST_APPLIED]: _previous, ...annotations } = manifest.metadata.annotations ?? {};
  const { annotations: _all, ...metadata } = manifest.metadata;
  const clean = {
    ...manifest,
    metadata: Object.keys(annotations).length > 0 ? { ...metadata, annotations } : metadata,
  };
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      annotations: { ...annotations, [LAST_APPLIED]: `${JSON.stringify(clean)}\n` },
    },
  };
}

function lastAppliedOf(live: unknown): unknown {
  const annotations =
    isRecord(live) && isRecord(live.metadata) && isRecord(live.metadata.annotations)
      ? live.metadata.annotations
      : {};
  const text = annotations[LAST_APPLIED];
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function clientSideApply(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  patchSchema: () => Promise<PatchSchema | undefined>,
  signal?: AbortSignal,
  dryRun = false,
): Promise<unknown> {
  const modified = withLastApplied(manifest);
  const query = { fieldManager: 'kubectl-client-side-apply', ...(dryRun ? { dryRun: 'All' } : {}) };
  const path = resourcePath(resource, manifest.metadata.namespace, manifest.metadata.name);
  for (let attempt = 0; ; attempt++) {
    let live: unknown;
    try {
      live = (await http.request({ verb: 'get', method: 'GET', path, signal })).body;
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 404)) throw error;
      try {
        const created = await http.request({
          verb: 'create',
          method: 'POST',
          path: resourcePath(resource, manifest.metadata.namespace),
          query,
          body: modified,
          signal,
        });
        return created.body;
      } catch (createError) {
        // Someone created it between our read and our create: patch it instead, once.
        if (createError instanceof KubeApiError && createError.status === 409 && attempt === 0) continue;
        throw createError;
      }
    }
    const strategic = isBuiltinGroup(resource.group);
    const schema = strategic ? await patchSchema() : undefined;
    const patch = threeWayPatch(
      lastAppliedOf(live),
      modified,
      isRecord(live) ? live : {},
      strategic ? (schema ?? emptySchema) : undefined,
    );
    if (Object.keys(patch).length === 0) return live;
    const answer = await http.request({
      verb: 'patch',
      method: 'PATCH',
      path,
      query,
      contentType: strategic ? 'application/strategic-merge-patch+json' : 'application/merge-patch+json',
      body: patch,
      signal,
    });
    return answer.body;
  }
}

/** A built-in kind whose OpenAPI is unavailable is still patched strategically, with lists replaced. */
const emptySchema: PatchSchema = {
  strategy: '',
  mergeKey: undefined,
  field: () => undefined,
  items: () => undefined,
};
