// The reads a converter makes while it checks a request (converter.ts ClusterReads), carried out by
// the account's agent: its namespaces and default namespace, and the objects a deploy versions
// against, listed page by page with Secret values blanked before they leave the cluster. Failures are
// the HTTP API's (operations/agent-answer.ts): 503 without an agent, 502 when the agent fails.
// An account's description comes from the agent's definition of it, which changes with the session
// serving it or its accounts, and (a dynamic account's definition edited in place) without either: it
// is kept for DESCRIPTION_KEEP_MS while the sessions do not change, so the deploys of a burst do not
// each wait for a round trip to the agent before their POST is answered. A stale description cannot
// widen an account: the agent refuses a namespace outside the account before it writes anything.
import type { AccountDescription } from '../../contract/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import type { ClusterReads, KubeObject } from './converters/index.ts';

/** Versions of one name rarely pass a few hundred; this bounds a namespace with many objects. */
const MAX_PAGES = 20;

/** How long an account's description is kept: short, as an edited dynamic account tells no session. */
export const DESCRIPTION_KEEP_MS = 10_000;

/** The sessions whose changes end a kept description. */
export type SessionChanges = Pick<AgentRegistry, 'sessionFor' | 'onChange'>;

export function agentClusterReads(
  dispatcher: AgentOperations,
  sessions: SessionChanges,
  now: () => Date,
): ClusterReads {
  // By account: the description its serving session gave, and when it was asked (a failed ask is not kept).
  const described = new Map<
    string,
    { sessionId: string; askedAt: number; description: Promise<AccountDescription> }
  >();
  sessions.onChange(() => described.clear());
  return {
    describe(account: string): Promise<AccountDescription> {
      const sessionId = sessions.sessionFor(account)?.sessionId;
      const kept = described.get(account);
      const askedAt = now().getTime();
      if (
        kept !== undefined &&
        kept.sessionId === sessionId &&
        askedAt - kept.askedAt < DESCRIPTION_KEEP_MS
      ) {
        return kept.description;
      }
      const request = { account, type: 'describeAccount', payload: {} } as const;
      const description = askAgent(dispatcher, request, `describe account ${account}`);
      // Served by another replica's agent (no session here): asked each time, as this one cannot
      // see that session change.
      if (sessionId === undefined) return description;
      const entry = { sessionId, askedAt, description };
      described.set(account, entry);
      description.catch(() => {
        if (described.get(account) === entry) described.delete(account);
      });
      return description;
    },
    async list(account, of): Promise<KubeObject[]> {
      const items: KubeObject[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const payload = { ...of, scrubbed: true, ...(token === undefined ? {} : { continue: token }) };
        const answer = await askAgent(
          dispatcher,
          { account, type: 'list', payload },
          `list ${of.kind} in ${of.namespace}`,
        );
        items.push(...answer.items);
        token = answer.continue;
        if (token === undefined) break;
      }
      return items;
    },
  };
}
