// `deleteObjects`: delete named objects, reporting those that were there (the versions a Spinnaker
// cleanup drops). `deleteIfPresent` is the one delete both this and `deleteSelected` make.
import { type ApiResource, KubeApiError, resourcePath } from '../../../kube/index.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import type { Handler } from '../operation-handler.ts';

export interface DeleteOptions {
  propagationPolicy: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number | undefined;
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
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: options.propagationPolicy,
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
