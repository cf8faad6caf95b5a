// `delete`: delete one object with a propagation policy and grace period, optionally waiting until
// it is gone (finalizers and foreground deletion can keep it for a while). Its plan is the same
// DELETE as a dry run (planDeletion).
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError } from '../../../kube/index.ts';
import type { Handler } from '../operation-handler.ts';
import type { Planner } from '../plan/index.ts';
import { planDeletion } from './delete-objects.ts';
import { objectPath } from './object-ref.ts';

export const deletePlanner: Planner<'delete'> = async (payload, { cluster, signal }) => {
  const { apiVersion, kind, namespace, name } = payload;
  const ref = { apiVersion, kind, ...(namespace === undefined ? {} : { namespace }), name };
  return { objects: [await planDeletion(cluster, ref, payload, signal)], unknown: [] };
};

export const deleteHandler: Handler<'delete'> = {
  run: async (payload, context) => {
    const path = await objectPath(payload, context);
    const http = context.cluster.http;
    try {
      await http.request({
        verb: 'delete',
        method: 'DELETE',
        path,
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          propagationPolicy: payload.propagationPolicy,
          ...(payload.gracePeriodSeconds === undefined
            ? {}
            : { gracePeriodSeconds: payload.gracePeriodSeconds }),
        },
        signal: context.signal,
      });
    } catch (error) {
      // Already gone is what was asked for.
      if (error instanceof KubeApiError && error.status === 404) return { deleted: false, gone: true };
      throw error;
    }
    if (!payload.wait) return { deleted: true, gone: false };
    for (;;) {
      try {
        await http.request({ verb: 'get', method: 'GET', path, signal: context.signal });
      } catch (error) {
        if (error instanceof KubeApiError && error.status === 404) return { deleted: true, gone: true };
        throw error;
      }
      await sleep(250, undefined, { signal: context.signal });
    }
  },
};
