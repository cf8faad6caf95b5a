// `patch`: a strategic merge, JSON merge or JSON patch of one object; with `ignoreNotFound`, an
// object already gone is reported as such rather than failing. Its plan sends the same PATCH as a
// dry run.
import type { ParsedPayload } from '../../../contract/index.ts';
import { type ApiResource, KubeApiError, type KubeRequest, UnknownKindError } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler, HandlerContext } from '../operation-handler.ts';
import {
  dryRun,
  dryRunRequest,
  type Planner,
  readLive,
  unknownKindDraft,
  writeAction,
} from '../plan/index.ts';
import { objectPath } from './object-ref.ts';

const CONTENT_TYPES = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;

type Payload = ParsedPayload<'patch'>;

async function patchRequest(payload: Payload, context: HandlerContext): Promise<KubeRequest> {
  if (payload.patchType === 'json' && !Array.isArray(payload.patch)) {
    throw new OperationError('INVALID_PAYLOAD', 'patch: a json patch is a list of operations', 'patch');
  }
  return {
    verb: 'patch',
    method: 'PATCH',
    path: await objectPath(payload, context),
    query: { fieldManager: 'orch-agent' },
    contentType: CONTENT_TYPES[payload.patchType],
    body: payload.patch,
    signal: context.signal,
  };
}

export const patchHandler: Handler<'patch'> = {
  run: async (payload, context) => {
    const request = await patchRequest(payload, context);
    try {
      const answer = await context.cluster.http.request(request);
      return { object: isRecord(answer.body) ? answer.body : null, gone: false };
    } catch (error) {
      if (payload.ignoreNotFound && error instanceof KubeApiError && error.status === 404) {
        return { object: null, gone: true };
      }
      throw error;
    }
  },
};

export const patchPlanner: Planner<'patch'> = async (payload, context) => {
  const { cluster, signal } = context;
  const { apiVersion, kind, namespace, name } = payload;
  const ref = { apiVersion, kind, ...(namespace === undefined ? {} : { namespace }), name };
  let resource: ApiResource;
  try {
    resource = await cluster.resources.resolve(apiVersion, kind, signal);
  } catch (error) {
    if (error instanceof UnknownKindError) return { objects: [unknownKindDraft(ref, error)], unknown: [] };
    throw error;
  }
  const at = { namespace: resource.namespaced ? namespace : undefined, name };
  const access = [{ verb: 'patch', group: resource.group, resource: resource.resource, ...at }];
  const request = await patchRequest(payload, context);
  const live = await readLive(cluster, resource, at, signal);
  if (live === null && payload.ignoreNotFound) {
    // Gone is success for this patch: nothing to write, nothing refused.
    return {
      objects: [{ ref, action: 'none', live, planned: null, dryRun: { allowed: true }, access, unknown: [] }],
      unknown: [],
    };
  }
  const { planned, verdict } = await dryRun(
    async () => (await cluster.http.request(dryRunRequest(request))).body,
  );
  return {
    objects: [
      {
        ref,
        action: live === null ? 'none' : writeAction(live, planned),
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
