// `versions`: each named object's live resourceVersion, null when the cluster has none. cloudctl asks
// before applying a plan, so a plan whose objects moved is refused (409) before a task is made; the
// task's own writes carry the same versions (`expect`), so a move in between is still caught.
import { KubeApiError, UnknownKindError } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { Handler } from '../operation-handler.ts';
import { getObject } from './object-ref.ts';

export const versionsHandler: Handler<'versions'> = {
  run: async ({ objects }, context) => ({
    versions: await Promise.all(
      objects.map(async (ref) => {
        try {
          const object = await getObject(ref, context);
          const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
          return typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : null;
        } catch (error) {
          // Absent, or of a kind the cluster no longer serves: either way there is no such object.
          if (error instanceof UnknownKindError) return null;
          if (error instanceof KubeApiError && error.status === 404) return null;
          throw error;
        }
      }),
    ),
  }),
};
