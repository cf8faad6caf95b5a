// `delete`: delete one object with a propagation policy and grace period, optionally waiting until
// it is gone (finalizers and foreground deletion can keep it for a while).
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError } from '../../../kube/index.ts';
import type { Handler } from '../operation-handler.ts';
import { objectPath } from './object-ref.ts';

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
