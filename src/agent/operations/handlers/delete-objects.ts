// `deleteObjects`: delete named objects, reporting those that were there (the versions a Spinnaker
// cleanup drops). `deleteIfPresent` is the one delete this, `delete` and `deleteSelected` make, and
// `planDeletion` the one plan of it (the same DELETE as a server-side dry run).
import type { ObjectRef } from '../../../contract/index.ts';
import { type ApiResource, KubeApiError, resourcePath, UnknownKindError } from '../../../kube/index.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import type { Handler } from '../operation-handler.ts';
import { dryRun, type ObjectDraft, type Planner, readLive, unknownKindDraft } from '../plan/index.ts';

export interface DeleteOptions {
  propagationPolicy: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number | undefined;
  /** A server-side dry run: checked and admitted, nothing deleted. */
  dryRun?: boolean | undefined;
}

/** Deletes one object; false when it was already gone. */
export async function deleteIfPresent(
  cluster: AccountCluster,
  resource: ApiResource,
  at: { namespace?: string | undefined; name: string },
  options: DeleteOptions,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await cluster.http.request({
      verb: 'delete',
      method: 'DELETE',
      path: resourcePath(resource, at.namespace, at.name),
      // A DELETE with a body takes its options from the body alone: the dry run must be said there.
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: options.propagationPolicy,
        ...(options.dryRun ? { dryRun: ['All'] } : {}),
        ...(options.gracePeriodSeconds === undefined
          ? {}
          : { gracePeriodSeconds: options.gracePeriodSeconds }),
      },
      signal,
    });
    return true;
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return false;
    throw error;
  }
}

export const deleteObjectsHandler: Handler<'deleteObjects'> = {
  run: async (payload, { cluster, signal }) => {
    const deleted = [];
    for (const ref of payload.objects) {
      const resource = await cluster.resources.resolve(ref.apiVersion, ref.kind, signal);
      const namespace = resource.namespaced ? ref.namespace : undefined;
      if (await deleteIfPresent(cluster, resource, { namespace, name: ref.name }, payload, signal)) {
        deleted.push({ ...ref, ...(namespace === undefined ? {} : { namespace }) });
      }
    }
    return { deleted };
  },
};

/** The plan of deleting one object: `delete` when it is there (with the dry run's verdict), else `none`. */
export async function planDeletion(
  cluster: AccountCluster,
  ref: ObjectRef,
  options: DeleteOptions,
  signal?: AbortSignal,
): Promise<ObjectDraft> {
  let resource: ApiResource;
  try {
    resource = await cluster.resources.resolve(ref.apiVersion, ref.kind, signal);
  } catch (error) {
    if (error instanceof UnknownKindError) return unknownKindDraft(ref, error);
    throw error;
  }
  const namespace = resource.namespaced ? ref.namespace : undefined;
  const at = { namespace, name: ref.name };
  const placed = { ...ref, namespace };
  if (namespace === undefined) delete placed.namespace;
  const access = [
    { verb: 'delete', group: resource.group, resource: resource.resource, namespace, name: ref.name },
  ];
  const live = await readLive(cluster, resource, at, signal);
  if (live === null) {
    return {
      ref: placed,
      action: 'none',
      live,
      planned: null,
      dryRun: { allowed: true },
      access,
      unknown: [],
    };
  }
  const { verdict } = await dryRun(() =>
    deleteIfPresent(cluster, resource, at, { ...options, dryRun: true }, signal),
  );
  return { ref: placed, action: 'delete', live, planned: null, dryRun: verdict, access, unknown: [] };
}

export const deleteObjectsPlanner: Planner<'deleteObjects'> = async (payload, { cluster, signal }) => ({
  objects: await Promise.all(payload.objects.map((ref) => planDeletion(cluster, ref, payload, signal))),
  unknown: [],
});
