// `scale`: set the replicas of a Deployment, ReplicaSet or StatefulSet through its scale subresource.
import { isRecord } from '../../../lib/is-record.ts';
import type { Handler } from '../operation-handler.ts';
import { objectPath } from './object-ref.ts';

export const scaleHandler: Handler<'scale'> = {
  run: async (payload, context) => {
    const path = await objectPath({ ...payload, apiVersion: 'apps/v1' }, context, 'scale');
    const answer = await context.cluster.http.request({
      verb: 'patch',
      method: 'PATCH',
      path,
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: payload.replicas } },
      signal: context.signal,
    });
    const spec = isRecord(answer.body) && isRecord(answer.body.spec) ? answer.body.spec : {};
    return typeof spec.replicas === 'number' ? { replicas: spec.replicas } : {};
  },
};
