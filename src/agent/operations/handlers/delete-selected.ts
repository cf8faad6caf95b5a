// `deleteSelected`: delete every object of some kinds in one namespace that a label selector matches
// (Spinnaker's delete by kinds and label selectors). Each object is listed, then deleted by name, so
// the result names exactly what was deleted; one already gone is not counted.
import { resourcePath } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { Handler } from '../operation-handler.ts';
import { deleteIfPresent } from './delete-objects.ts';

export const deleteSelectedHandler: Handler<'deleteSelected'> = {
  run: async (payload, { cluster, signal }) => {
    const deleted: Array<{ apiVersion: string; kind: string; namespace?: string; name: string }> = [];
    for (const { apiVersion, kind } of payload.kinds) {
      const resource = await cluster.resources.resolve(apiVersion, kind, signal);
      const namespace = resource.namespaced ? payload.namespace : undefined;
      const listed = await cluster.http.request({
        verb: 'list',
        method: 'GET',
        path: resourcePath(resource, namespace),
        query: { labelSelector: payload.labelSelector },
        signal,
      });
      const items = isRecord(listed.body) && Array.isArray(listed.body.items) ? listed.body.items : [];
      for (const item of items.filter(isRecord)) {
        const name = isRecord(item.metadata) ? String(item.metadata.name) : '';
        if (await deleteIfPresent(cluster, resource, { namespace, name }, payload, signal)) {
          deleted.push({ apiVersion, kind, ...(namespace === undefined ? {} : { namespace }), name });
        }
      }
    }
    return { deleted };
  },
};
