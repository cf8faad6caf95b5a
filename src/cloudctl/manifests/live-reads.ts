// What a manifest read asks the account's agent when the cache cannot answer: one object (`get`, as
// the watch would cache it, so a Secret's values never leave the cluster) and the Events about an
// object (`list`); and whether an agent serves the account at all, so that a read while it is away
// answers cloudctl's stored copy instead of failing. Failures become the HTTP API's
// (operations/agent-answer.ts); an object the cluster does not have is undefined, not an error.
import type { OperationPayload } from '../../contract/index.ts';
import {
  type AgentOperations,
  askAgent,
  askAgentIfPresent,
  type OperationDispatcher,
} from '../operations/index.ts';

/** What manifest reads need of the dispatcher: to ask the agent, and whether one serves the account. */
export type LiveReads = AgentOperations & Pick<OperationDispatcher, 'serves'>;

/** The object as the cluster has it now; undefined when it has none (or the account leaves it out). */
export async function liveObject(
  operations: AgentOperations,
  account: string,
  ref: Omit<OperationPayload<'get'>, 'asCached'>,
): Promise<Record<string, unknown> | undefined> {
  const answer = await askAgentIfPresent(
    operations,
    { account, type: 'get', payload: { ...ref, asCached: true } },
    `read ${ref.kind} ${ref.name}`,
  );
  return answer?.object ?? undefined;
}

/**
 * The Events whose involved object has the uid, oldest first by their last (else first) time, those
 * without a time last. By uid, not name: events of an earlier object of the same name are not its.
 */
export async function liveEvents(
  operations: AgentOperations,
  account: string,
  involved: { uid: string; namespace: string },
): Promise<Record<string, unknown>[]> {
  const payload: OperationPayload<'list'> = {
    apiVersion: 'v1',
    kind: 'Event',
    ...(involved.namespace === '' ? {} : { namespace: involved.namespace }),
    fieldSelector: `involvedObject.uid=${involved.uid}`,
  };
  const { items } = await askAgent(operations, { account, type: 'list', payload }, 'list the events');
  const time = (e: Record<string, unknown>) => {
    const t = e.lastTimestamp ?? e.firstTimestamp ?? e.eventTime;
    return typeof t === 'string' ? t : undefined;
  };
  // A list's items carry no kind; clouddriver's (read through kubectl) do, and clients read them.
  const events = items.map((e) => ({ apiVersion: 'v1', kind: 'Event', ...e }));
  return events.sort((a, b) => {
    const [ta, tb] = [time(a), time(b)];
    if (ta === undefined || tb === undefined) return ta === tb ? 0 : ta === undefined ? 1 : -1;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
}
