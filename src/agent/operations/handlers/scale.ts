// `scale`: set the replicas of a Deployment, ReplicaSet or StatefulSet through its scale subresource.
// Its plan sends the same PATCH of the scale subresource as a dry run.
import type { ParsedPayload } from '../../../contract/index.ts';
import type { KubeRequest } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { Handler, HandlerContext } from '../operation-handler.ts';
import { dryRun, dryRunRequest, type Planner, readLive } from '../plan/index.ts';
import { objectPath } from './object-ref.ts';

type Payload = ParsedPayload<'scale'>;

const replicasOf = (object: unknown): number | undefined => {
  const spec = isRecord(object) && isRecord(object.spec) ? object.spec : {};
  return typeof spec.replicas === 'number' ? spec.replicas : undefined;
};

async function scaleRequest(payload: Payload, context: HandlerContext): Promise<KubeRequest> {
  return {
    verb: 'patch',
    method: 'PATCH',
    path: await objectPath({ ...payload, apiVersion: 'apps/v1' }, context, 'scale'),
    contentType: 'application/merge-patch+json',
    body: { spec: { replicas: payload.replicas } },
    signal: context.signal,
  };
}

export const scaleHandler: Handler<'scale'> = {
  run: async (payload, context) => {
    const answer = await context.cluster.http.request(await scaleRequest(payload, context));
    const replicas = replicasOf(answer.body);
    return replicas === undefined ? {} : { replicas };
  },
};

export const scalePlanner: Planner<'scale'> = async (payload, context) => {
  const { cluster, signal } = context;
  const resource = await cluster.resources.resolve('apps/v1', payload.kind, signal);
  const ref = { apiVersion: 'apps/v1', kind: payload.kind, namespace: payload.namespace, name: payload.name };
  const live = await readLive(cluster, resource, payload, signal);
  const { planned: scale, verdict } = await dryRun(
    async () => (await cluster.http.request(dryRunRequest(await scaleRequest(payload, context)))).body,
  );
  const replicas = replicasOf(scale);
  // The scale subresource answers a Scale; the plan shows the object itself with its new replicas.
  const planned =
    live === null || replicas === undefined
      ? null
      : { ...live, spec: { ...(isRecord(live.spec) ? live.spec : {}), replicas } };
  const { group, resource: plural } = resource;
  const at = { namespace: payload.namespace, name: payload.name };
  const access = [{ verb: 'patch', group, resource: plural, subresource: 'scale', ...at }];
  return {
    objects: [
      {
        ref,
        action: live === null ? 'none' : replicasOf(live) === replicas ? 'none' : 'update',
        live,
        planned,
        dryRun: verdict,
        access,
        unknown: [],
      },
    ],
    unknown: [],
  };
};
