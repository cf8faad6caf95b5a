// `scale`: set the replicas of a Deployment, ReplicaSet or StatefulSet through its scale subresource.
import { scalePayload } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { defineHandler } from '../operation-handler.ts';
import { objectPath } from './object-ref.ts';

export const scaleHandler = defineHandler({
  type: 'scale',
  payload: scalePayload,
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
    return { replicas: spec.replicas };
  },
});
