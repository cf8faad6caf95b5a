// `deploy`: apply one or more manifests (see apply/apply-manifests.ts for order and apply modes).
import { z } from 'zod';
import { applyManifests } from '../apply/apply-manifests.ts';
import { defineHandler } from '../operation-handler.ts';

export const deployHandler = defineHandler({
  type: 'deploy',
  payload: z.object({
    manifests: z.array(z.unknown()).min(1),
    /** Take over fields another manager owns (server-side apply conflicts). */
    force: z.boolean().default(false),
  }),
  run: async (payload, { cluster, signal }) => ({
    applied: await applyManifests(cluster, payload.manifests, {
      force: payload.force,
      signal,
      crdTimeoutMs: 60_000,
    }),
  }),
});
