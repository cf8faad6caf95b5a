// `deleteSelected`: delete every object of some kinds in one namespace that a label selector matches
// (Spinnaker's delete by kinds and label selectors). Each object is listed, then deleted by name, so
// the result names exactly what was deleted; one already gone is not counted. Its plan lists the same
// way and plans the delete of each object found (planDeletion).
import type { ObjectRef } from '../../../contract/index.ts';
import { resourcePath } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import { boundedAll } from '../bounded-all.ts';
import type { Handler } from '../operation-handler.ts';
import type { Planner } from '../plan/index.ts';
import { deleteIfPresent, planDeletion } from './delete-objects.ts';

/** The objects of the payload's kinds that its selector matches now. */
async function selected(
  payload: {
    kinds: Array<{ apiVersion: string; kind: string }>;
    namespace?: string | undefined;
    labelSelector: string;
  },
  cluster: AccountCluster,
  signal: AbortSignal,
): Promise<ObjectRef[]> {
  const refs: ObjectRef[] = [];
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
      const metadata = isRecord(item.metadata) ? item.metadata : {};
      const at = typeof metadata.namespace === 'string' ? metadata.namespace : namespace;
      refs.push({
        apiVersion,
        kind,
        ...(at === undefined ? {} : { namespace: at }),
        name: String(metadata.name),
      });
    }
  }
  return refs;
}

export const deleteSelectedPlanner: Planner<'deleteSelected'> = async (payload, { cluster, signal }) => {
  const refs = await selected(payload, cluster, signal);
  const kinds = payload.kinds.map((k) => k.kind).join(', ');
  return {
    objects: await boundedAll(refs, 8, (ref) => planDeletion(cluster, ref, payload, signal)),
    unknown: [
      `the objects deleted are those of ${kinds} matching '${payload.labelSelector}' when it runs: one created since the plan is deleted too`,
    ],
  };
};

export const deleteSelectedHandler: Handler<'deleteSelected'> = {
  run: async (payload, { cluster, signal }) => {
    const deleted: ObjectRef[] = [];
    for (const ref of await selected(payload, cluster, signal)) {
      const resource = await cluster.resources.resolve(ref.apiVersion, ref.kind, signal);
      if (await deleteIfPresent(cluster, resource, ref, payload, signal)) deleted.push(ref);
    }
    return { deleted };
  },
};
