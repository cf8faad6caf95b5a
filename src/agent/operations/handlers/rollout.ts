// `rollout`: undo (to the previous or a given revision), pause, resume and rolling restart, with
// kubectl's semantics. Deployments keep their history in ReplicaSets (annotation
// `deployment.kubernetes.io/revision`); StatefulSets and DaemonSets in ControllerRevisions, whose
// `data` is a strategic merge patch of the pod template. Each action comes down to one PATCH of the
// workload (rolloutWrite); the handler sends it, the plan sends it as a dry run.
import type { HandlerResult, ParsedPayload } from '../../../contract/index.ts';
import type { KubeRequest } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler, HandlerContext } from '../operation-handler.ts';
import { dryRun, dryRunRequest, type Planner, readLive, writeAction } from '../plan/index.ts';
import { getObject, objectPath } from './object-ref.ts';

const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const REVISION = 'deployment.kubernetes.io/revision';

type Payload = ParsedPayload<'rollout'>;

const record = (v: unknown) => (isRecord(v) ? v : {});
const list = (v: unknown) => (isRecord(v) && Array.isArray(v.items) ? v.items.filter(isRecord) : []);

/** The PATCH an action sends, and what the action answers once it is sent. */
interface RolloutWrite {
  request: KubeRequest;
  result: HandlerResult<'rollout'>;
}

async function patchTarget(
  payload: Payload,
  context: HandlerContext,
  contentType: string,
  body: unknown,
): Promise<KubeRequest> {
  const path = await objectPath({ ...payload, apiVersion: 'apps/v1' }, context);
  return { verb: 'patch', method: 'PATCH', path, contentType, body, signal: context.signal };
}

function ownedBy(owner: Record<string, unknown>) {
  const uid = record(owner.metadata).uid;
  return (item: Record<string, unknown>) => {
    const refs = record(item.metadata).ownerReferences;
    return Array.isArray(refs) && refs.some((r) => isRecord(r) && r.uid === uid);
  };
}

function pickRevision(
  revisions: Array<{ revision: number; item: Record<string, unknown> }>,
  payload: Payload,
  current: number,
) {
  const sorted = revisions.sort((a, b) => b.revision - a.revision);
  const target =
    payload.toRevision === undefined
      ? sorted.find((r) => r.revision !== current)
      : sorted.find((r) => r.revision === payload.toRevision);
  if (target === undefined) {
    throw new OperationError(
      'NOT_FOUND',
      payload.toRevision === undefined
        ? `${payload.kind} ${payload.namespace}/${payload.name} has no previous revision to undo to`
        : `${payload.kind} ${payload.namespace}/${payload.name} has no revision ${payload.toRevision} (known: ${sorted.map((r) => r.revision).join(', ')})`,
    );
  }
  return target;
}

async function undoDeployment(payload: Payload, context: HandlerContext): Promise<RolloutWrite> {
  const deployment = record(await getObject({ ...payload, apiVersion: 'apps/v1' }, context));
  const selector = record(record(deployment.spec).selector).matchLabels;
  const labelSelector = Object.entries(record(selector))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  const answer = await context.cluster.http.request({
    verb: 'list',
    method: 'GET',
    path: `/apis/apps/v1/namespaces/${payload.namespace}/replicasets`,
    query: { labelSelector },
    signal: context.signal,
  });
  const revisions = list(answer.body)
    .filter(ownedBy(deployment))
    .map((item) => ({ revision: Number(record(record(item.metadata).annotations)[REVISION] ?? 0), item }));
  const current = Number(record(record(deployment.metadata).annotations)[REVISION] ?? 0);
  const target = pickRevision(revisions, payload, current);
  const template = structuredClone(record(record(target.item.spec).template));
  // The ReplicaSet's template carries the hash label its controller added; the Deployment's must not.
  const labels = record(record(template.metadata).labels);
  delete labels['pod-template-hash'];
  const request = await patchTarget(payload, context, 'application/json-patch+json', [
    { op: 'replace', path: '/spec/template', value: template },
  ]);
  return { request, result: { action: 'undo', revision: target.revision } };
}

async function undoFromControllerRevisions(payload: Payload, context: HandlerContext): Promise<RolloutWrite> {
  const owner = record(await getObject({ ...payload, apiVersion: 'apps/v1' }, context));
  const answer = await context.cluster.http.request({
    verb: 'list',
    method: 'GET',
    path: `/apis/apps/v1/namespaces/${payload.namespace}/controllerrevisions`,
    signal: context.signal,
  });
  const revisions = list(answer.body)
    .filter(ownedBy(owner))
    .map((item) => ({ revision: Number(item.revision ?? 0), item }));
  const current = Math.max(0, ...revisions.map((r) => r.revision));
  const target = pickRevision(revisions, payload, current);
  const request = await patchTarget(
    payload,
    context,
    'application/strategic-merge-patch+json',
    target.item.data,
  );
  return { request, result: { action: 'undo', revision: target.revision } };
}

/** The write an action makes: undo reads the revision to go back to, the others need nothing. */
async function rolloutWrite(payload: Payload, context: HandlerContext): Promise<RolloutWrite> {
  switch (payload.action) {
    case 'undo':
      return payload.kind === 'Deployment'
        ? undoDeployment(payload, context)
        : undoFromControllerRevisions(payload, context);
    case 'pause':
    case 'resume': {
      if (payload.kind !== 'Deployment') {
        throw new OperationError(
          'INVALID_PAYLOAD',
          `${payload.action} applies to Deployments only, not ${payload.kind}`,
          'kind',
        );
      }
      const request = await patchTarget(payload, context, 'application/merge-patch+json', {
        spec: { paused: payload.action === 'pause' },
      });
      return { request, result: { action: payload.action } };
    }
    case 'restart': {
      const restartedAt = context.now().toISOString();
      const request = await patchTarget(payload, context, 'application/strategic-merge-patch+json', {
        spec: { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } },
      });
      return { request, result: { action: 'restart', restartedAt } };
    }
  }
}

export const rolloutHandler: Handler<'rollout'> = {
  run: async (payload, context) => {
    const { request, result } = await rolloutWrite(payload, context);
    await context.cluster.http.request(request);
    return result;
  },
};

export const rolloutPlanner: Planner<'rollout'> = async (payload, context) => {
  const { cluster, signal } = context;
  const ref = { apiVersion: 'apps/v1', kind: payload.kind, namespace: payload.namespace, name: payload.name };
  const resource = await cluster.resources.resolve(ref.apiVersion, ref.kind, signal);
  const at = { namespace: payload.namespace, name: payload.name };
  const access = [{ verb: 'patch', group: resource.group, resource: resource.resource, ...at }];
  const live = await readLive(cluster, resource, at, signal);
  // An undo without a revision to go back to fails as the real one would (NOT_FOUND), plan or not.
  const { planned, verdict } = await dryRun(async () => {
    const { request } = await rolloutWrite(payload, context);
    return (await cluster.http.request(dryRunRequest(request))).body;
  });
  const action = live === null ? 'none' : writeAction(live, planned);
  return { objects: [{ ref, action, live, planned, dryRun: verdict, access, unknown: [] }], unknown: [] };
};
