// `patch`: a strategic merge, JSON merge or JSON patch of one object; with `ignoreNotFound`, an
// object already gone is reported as such rather than failing.
import { KubeApiError } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler } from '../operation-handler.ts';
import { objectPath } from './object-ref.ts';

const CONTENT_TYPES = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;

export const patchHandler: Handler<'patch'> = {
  run: async (payload, context) => {
    if (payload.patchType === 'json' && !Array.isArray(payload.patch)) {
      throw new OperationError('INVALID_PAYLOAD', 'patch: a json patch is a list of operations', 'patch');
    }
    try {
      const answer = await context.cluster.http.request({
        verb: 'patch',
        method: 'PATCH',
        path: await objectPath(payload, context),
        query: { fieldManager: 'orch-agent' },
        contentType: CONTENT_TYPES[payload.patchType],
        body: payload.patch,
        signal: context.signal,
      });
      return { object: isRecord(answer.body) ? answer.body : null, gone: false };
    } catch (error) {
      if (payload.ignoreNotFound && error instanceof KubeApiError && error.status === 404) {
        return { object: null, gone: true };
      }
      throw error;
    }
  },
};
