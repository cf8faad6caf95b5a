// Sending a write as a server-side dry run (`dryRun=All`: validated, defaulted, admitted, never
// stored) and reading the API server's verdict. A refusal (validation, admission, authorization, a
// conflict, a missing namespace) is the plan's answer for that object, not a failure of the plan:
// the plan still answers for every other object. Anything else (the cluster unreachable, a 5xx) fails
// the plan, since its answer would be a guess.
import { isDeepStrictEqual } from 'node:util';
import type { ObjectRef } from '../../../contract/index.ts';
import {
  type ApiResource,
  KubeApiError,
  type KubeRequest,
  resourcePath,
  UnknownKindError,
} from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import { InvalidManifestError } from '../apply/manifest.ts';
import { ApplyConflictError } from '../apply/server-side-apply.ts';
import { OperationError } from '../operation-error.ts';
import type { DryRunVerdict, ObjectDraft } from './object-draft.ts';

/** The request as a dry run: the same method, path and body, with `dryRun=All`. */
export function dryRunRequest(request: KubeRequest): KubeRequest {
  return { ...request, query: { ...request.query, dryRun: 'All' } };
}

/** Statuses that are the API server saying no to this write, which the real write would get too. */
const REFUSALS = new Set([400, 403, 404, 409, 422]);

/** The verdict of a refused write, or undefined when the error is not a refusal. */
export function refusal(error: unknown): DryRunVerdict | undefined {
  if (error instanceof KubeApiError && REFUSALS.has(error.status)) {
    return { allowed: false, reason: error.reason || `HTTP ${error.status}`, message: error.serverMessage };
  }
  if (error instanceof ApplyConflictError)
    return { allowed: false, reason: 'Conflict', message: error.message };
  if (error instanceof InvalidManifestError)
    return { allowed: false, reason: 'Invalid', message: error.message };
  if (error instanceof UnknownKindError)
    return { allowed: false, reason: 'UnknownKind', message: error.message };
  // What the write needs is missing (an undo's revision to go back to): the real one fails the same way.
  if (error instanceof OperationError && error.code === 'NOT_FOUND') {
    return { allowed: false, reason: 'NotFound', message: error.message };
  }
  return undefined;
}

/** Runs a dry-run write: the object as the API server would leave it, or its refusal. */
export async function dryRun(
  send: () => Promise<unknown>,
): Promise<{ planned: Record<string, unknown> | null; verdict: DryRunVerdict }> {
  try {
    const answer = await send();
    return { planned: isRecord(answer) ? answer : null, verdict: { allowed: true } };
  } catch (error) {
    const verdict = refusal(error);
    if (verdict === undefined) throw error;
    return { planned: null, verdict };
  }
}

/** An object that cannot be dry-run now, because this same operation must write something first. */
export function notDryRun(why: string): DryRunVerdict {
  return { allowed: true, reason: 'NotDryRun', message: `not dry-run: ${why}` };
}

/** The object as the cluster has it now, or null when absent. */
export async function readLive(
  cluster: AccountCluster,
  resource: ApiResource,
  at: { namespace?: string | undefined; name: string },
  signal?: AbortSignal,
): Promise<Record<string, unknown> | null> {
  try {
    const answer = await cluster.http.request({
      verb: 'get',
      method: 'GET',
      path: resourcePath(resource, resource.namespaced ? at.namespace : undefined, at.name),
      signal,
    });
    return isRecord(answer.body) ? answer.body : null;
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return null;
    throw error;
  }
}

/** Fields that change on every write or are bookkeeping; a dry run that changes only these changes nothing. */
function comparable(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  delete metadata.managedFields;
  delete metadata.resourceVersion;
  return { ...object, metadata };
}

/** create for an absent object; none when the dry run leaves it as it is; update otherwise. */
export function writeAction(
  live: Record<string, unknown> | null,
  planned: Record<string, unknown> | null,
): ObjectDraft['action'] {
  if (live === null) return 'create';
  if (planned !== null && isDeepStrictEqual(comparable(live), comparable(planned))) return 'none';
  return 'update';
}

/**
 * The draft of an object whose kind the cluster does not serve: the real write fails the same way.
 * Planners call it for the UnknownKindError of resolving the object's resource.
 */
export function unknownKindDraft(ref: ObjectRef, error: UnknownKindError): ObjectDraft {
  return {
    ref,
    action: 'none',
    live: null,
    planned: null,
    dryRun: { allowed: false, reason: 'UnknownKind', message: error.message },
    access: [],
    unknown: [],
  };
}
