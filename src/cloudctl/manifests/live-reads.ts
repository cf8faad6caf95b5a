// What a manifest read asks the account's agent when the cache cannot answer: one object (`get`, as
// the watch would cache it, so a Secret's values never leave the cluster) and the Events about an
// object (`list`). Failures become the HTTP API's: 503 without an agent, 502 when the agent or the
// cluster failed; an object the cluster does not have is undefined, not an error.
import type { OperationPayload } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { CloudctlError } from '../errors.ts';
import { HttpError } from '../http/index.ts';
import type { OperationDispatcher, OperationOutcome } from '../operations/index.ts';

export type Operations = Pick<OperationDispatcher, 'execute'>;

/** The agent reports a failure as `<code>: <message>`; these codes mean there is no such object. */
const ABSENT = ['NOT_FOUND:', 'UNKNOWN_KIND:'];

async function run(operations: Operations, account: string, type: string, payload: unknown) {
  try {
    return await operations.execute({ account, type, payload });
  } catch (error) {
    if (
      error instanceof CloudctlError &&
      (error.code === 'AGENT_NOT_CONNECTED' || error.code === 'SESSION_CLOSED')
    )
      throw new HttpError('AGENT_UNAVAILABLE', error.message, { cause: error });
    if (error instanceof CloudctlError && error.code === 'OPERATION_TIMEOUT')
      throw new HttpError('AGENT_FAILED', error.message, { cause: error });
    throw error;
  }
}

function failed(outcome: OperationOutcome, what: string): HttpError {
  return new HttpError('AGENT_FAILED', `the agent could not ${what}: ${outcome.error ?? ''}`);
}

/** The object as the cluster has it now; undefined when it has none (or the account leaves it out). */
export async function liveObject(
  operations: Operations,
  account: string,
  ref: Omit<OperationPayload<'get'>, 'asCached'>,
): Promise<Record<string, unknown> | undefined> {
  const what = `read ${ref.kind} ${ref.name}`;
  const outcome = await run(operations, account, 'get', { ...ref, asCached: true });
  if (outcome.outcome === 'failed') {
    if (ABSENT.some((code) => (outcome.error ?? '').startsWith(code))) return undefined;
    throw failed(outcome, what);
  }
  const object = isRecord(outcome.result) ? outcome.result.object : undefined;
  return isRecord(object) ? object : undefined;
}

/**
 * The Events whose involved object has the uid, oldest first by their last (else first) time, those
 * without a time last. By uid, not name: events of an earlier object of the same name are not its.
 */
export async function liveEvents(
  operations: Operations,
  account: string,
  involved: { uid: string; namespace: string },
): Promise<Record<string, unknown>[]> {
  const payload: OperationPayload<'list'> = {
    apiVersion: 'v1',
    kind: 'Event',
    ...(involved.namespace === '' ? {} : { namespace: involved.namespace }),
    fieldSelector: `involvedObject.uid=${involved.uid}`,
  };
  const outcome = await run(operations, account, 'list', payload);
  if (outcome.outcome === 'failed') throw failed(outcome, 'list the events');
  const items = isRecord(outcome.result) && Array.isArray(outcome.result.items) ? outcome.result.items : [];
  const time = (e: Record<string, unknown>) => {
    const t = e.lastTimestamp ?? e.firstTimestamp ?? e.eventTime;
    return typeof t === 'string' ? t : undefined;
  };
  // A list's items carry no kind; clouddriver's (read through kubectl) do, and clients read them.
  const events = items.filter(isRecord).map((e) => ({ apiVersion: 'v1', kind: 'Event', ...e }));
  return events.sort((a, b) => {
    const [ta, tb] = [time(a), time(b)];
    if (ta === undefined || tb === undefined) return ta === tb ? 0 : ta === undefined ? 1 : -1;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
}
