// A planned write's preconditions (the payload's `expect`): before the handler writes anything, each
// object the plan saw is read again, and the write is refused (PRECONDITION_FAILED, naming every
// object that moved) unless each still has the resourceVersion the plan saw, or is still absent. It
// is checked here once, where every handler is run, so no handler can forget it; the deploy handler
// also carries the versions into its server-side applies, closing the window between this read and
// the write (server-side-apply.ts).
import { z } from 'zod';
import { type ExpectedVersion, expectedVersionSchema, type ObjectRef } from '../../contract/index.ts';
import { KubeApiError, resourcePath, UnknownKindError } from '../../kube/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { OperationError } from './operation-error.ts';

/** The object's live resourceVersion, or null when the cluster has none (absent, or no such kind). */
export async function liveResourceVersion(
  cluster: AccountCluster,
  ref: ObjectRef,
  signal?: AbortSignal,
): Promise<string | null> {
  try {
    const resource = await cluster.resources.resolve(ref.apiVersion, ref.kind, signal);
    const answer = await cluster.http.request({
      verb: 'get',
      method: 'GET',
      path: resourcePath(resource, ref.namespace, ref.name),
      signal,
    });
    const metadata = isRecord(answer.body) && isRecord(answer.body.metadata) ? answer.body.metadata : {};
    return typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : null;
  } catch (error) {
    // Absent, or of a kind the cluster no longer serves: either way there is no such object.
    if (error instanceof UnknownKindError) return null;
    if (error instanceof KubeApiError && error.status === 404) return null;
    throw error;
  }
}

const expectField = z.object({ expect: z.array(expectedVersionSchema).optional() });

/**
 * The preconditions a checked payload carries. Every write payload has the same optional `expect`
 * (the contract's `expectField`), so one look serves every type; reads have none.
 */
export function expectationsOf(payload: unknown): ExpectedVersion[] {
  const parsed = expectField.safeParse(payload);
  return parsed.success ? (parsed.data.expect ?? []) : [];
}

export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`;
}

/** How one object moved since the plan, or undefined when it is as the plan saw it. */
function moved(expected: ExpectedVersion, now: string | null): string | undefined {
  if (now === expected.resourceVersion) return undefined;
  const then = expected.resourceVersion === null ? 'absent' : `resourceVersion ${expected.resourceVersion}`;
  const current =
    now === null ? 'absent now' : expected.resourceVersion === null ? 'exists now' : `${now} now`;
  return `${describeRef(expected)}: ${then} when planned, ${current}`;
}

/** Throws PRECONDITION_FAILED naming each expected object that is not as the plan saw it. */
export async function checkPreconditions(
  expect: ReadonlyArray<ExpectedVersion>,
  cluster: AccountCluster,
  signal?: AbortSignal,
): Promise<void> {
  if (expect.length === 0) return;
  const now = await Promise.all(expect.map((ref) => liveResourceVersion(cluster, ref, signal)));
  const changes = expect.flatMap((ref, i) => moved(ref, now[i] ?? null) ?? []);
  if (changes.length > 0) {
    throw new OperationError(
      'PRECONDITION_FAILED',
      `changed since the plan, so nothing was written: ${changes.join('; ')}`,
    );
  }
}
