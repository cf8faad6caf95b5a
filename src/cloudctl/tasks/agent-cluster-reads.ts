// The reads a converter makes while it checks a request (converter.ts ClusterReads), carried out by
// the account's agent: its namespaces and default namespace, and the objects a deploy versions
// against, listed page by page with Secret values blanked before they leave the cluster. Failures are
// the HTTP API's (operations/agent-answer.ts): 503 without an agent, 502 when the agent fails.
import type { AccountDescription } from '../../contract/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import type { ClusterReads, KubeObject } from './converters/index.ts';

/** Versions of one name rarely pass a few hundred; this bounds a namespace with many objects. */
const MAX_PAGES = 20;

export function agentClusterReads(dispatcher: AgentOperations): ClusterReads {
  return {
    describe(account: string): Promise<AccountDescription> {
      const request = { account, type: 'describeAccount', payload: {} } as const;
      return askAgent(dispatcher, request, `describe account ${account}`);
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
