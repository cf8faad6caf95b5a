// `versions`: each named object's live resourceVersion, null when the cluster has none. cloudctl asks
// before applying a plan, so a plan whose objects moved is refused (409) before a task is made; the
// task's own writes carry the same versions (`expect`), so a move in between is still caught.
import type { Handler } from '../operation-handler.ts';
import { liveResourceVersion } from '../preconditions.ts';

export const versionsHandler: Handler<'versions'> = {
  run: async ({ objects }, { cluster, signal }) => ({
    versions: await Promise.all(objects.map((ref) => liveResourceVersion(cluster, ref, signal))),
  }),
};
