// `deploy`: apply one or more manifests (see apply/apply-manifests.ts for order and apply modes).
import { applyManifests } from '../apply/apply-manifests.ts';
import type { Handler } from '../operation-handler.ts';

export const deployHandler: Handler<'deploy'> = {
  run: async (payload, { cluster, signal }) => ({
    applied: await applyManifests(cluster, payload.manifests, {
      force: payload.force,
      signal,
      crdTimeoutMs: 60_000,
      // Checked before the handler runs (preconditions.ts); carried into each apply to close the window.
      expect: payload.expect,
    }),
  }),
};
