// `deploy`: apply one or more manifests (see apply/apply-manifests.ts for order and apply modes).
import { deployPayload } from '../../../contract/index.ts';
import { applyManifests } from '../apply/apply-manifests.ts';
import { defineHandler } from '../operation-handler.ts';

export const deployHandler = defineHandler({
  type: 'deploy',
  payload: deployPayload,
  run: async (payload, { cluster, signal }) => ({
    applied: await applyManifests(cluster, payload.manifests, {
      force: payload.force,
      signal,
      crdTimeoutMs: 60_000,
    }),
  }),
});
