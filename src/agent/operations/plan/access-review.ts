// Whether the agent's own identity may do each write a plan found: one SelfSubjectAccessReview per
// distinct (verb, group, resource, subresource, namespace, name), asked a few at a time. The answer
// is the authorizer's (RBAC, webhooks), for the credentials the agent really uses, so a missing
// permission shows in the plan instead of halfway through the apply.
import type { AccessCheck } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import { boundedAll } from '../bounded-all.ts';
import type { AccessRequest } from './object-draft.ts';

/** Reviews in flight at once. */
const CONCURRENCY = 8;

const keyOf = (r: AccessRequest) =>
  JSON.stringify([r.verb, r.group, r.resource, r.subresource ?? '', r.namespace ?? '', r.name ?? '']);

async function review(
  cluster: AccountCluster,
  request: AccessRequest,
  signal?: AbortSignal,
): Promise<AccessCheck> {
  const answer = await cluster.http.request({
    verb: 'create',
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          verb: request.verb,
          group: request.group,
          resource: request.resource,
          ...(request.subresource === undefined ? {} : { subresource: request.subresource }),
          ...(request.namespace === undefined ? {} : { namespace: request.namespace }),
          ...(request.name === undefined ? {} : { name: request.name }),
        },
      },
    },
    signal,
  });
  const status = isRecord(answer.body) && isRecord(answer.body.status) ? answer.body.status : {};
  const reason = [status.reason, status.evaluationError].filter((s) => typeof s === 'string' && s !== '');
  return {
    verb: request.verb,
    group: request.group,
    resource: request.resource,
    ...(request.subresource === undefined ? {} : { subresource: request.subresource }),
    ...(request.namespace === undefined ? {} : { namespace: request.namespace }),
    allowed: status.allowed === true,
    ...(reason.length > 0 ? { reason: reason.join('; ') } : {}),
  };
}

/** The checks of each object's writes, in the order given; a write asked twice is reviewed once. */
export async function reviewAccess(
  cluster: AccountCluster,
  perObject: ReadonlyArray<ReadonlyArray<AccessRequest>>,
  signal?: AbortSignal,
): Promise<AccessCheck[][]> {
  const distinct = new Map<string, AccessRequest>();
  for (const request of perObject.flat()) distinct.set(keyOf(request), request);
  const requests = [...distinct.values()];
  const checks = await boundedAll(requests, CONCURRENCY, (request) => review(cluster, request, signal));
  const byKey = new Map(requests.map((request, i) => [keyOf(request), checks[i]]));
  return perObject.map((requests) => requests.flatMap((request) => byKey.get(keyOf(request)) ?? []));
}
