// The reads a converter makes while it checks a request (converter.ts ClusterReads), carried out by
// the account's agent: its namespaces and default namespace, and the objects a deploy versions
// against, listed page by page with Secret values blanked before they leave the cluster. A request
// that needs them while no agent serves the account is answered 503, one the agent fails 502.
import { type AccountDescription, accountDescriptionSchema } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { CloudctlError } from '../errors.ts';
import { HttpError } from '../http/index.ts';
import type { OperationDispatcher } from '../operations/index.ts';
import type { ClusterReads, KubeObject } from './converters/index.ts';

/** Versions of one name rarely pass a few hundred; this bounds a namespace with many objects. */
const MAX_PAGES = 20;

async function call(
  dispatcher: Pick<OperationDispatcher, 'execute'>,
  account: string,
  type: string,
  payload: unknown,
): Promise<unknown> {
  try {
    const outcome = await dispatcher.execute({ account, type, payload });
    if (outcome.outcome === 'failed') {
      throw new HttpError(
        'AGENT_FAILED',
        `the agent of account ${account} could not ${type}: ${outcome.error ?? ''}`,
      );
    }
    return outcome.result;
  } catch (error) {
    if (
      error instanceof CloudctlError &&
      (error.code === 'AGENT_NOT_CONNECTED' || error.code === 'SESSION_CLOSED')
    ) {
      throw new HttpError('AGENT_UNAVAILABLE', `${error.message}: the request needs its cluster`, {
        cause: error,
      });
    }
    if (error instanceof CloudctlError && error.code === 'OPERATION_TIMEOUT') {
      throw new HttpError('AGENT_FAILED', error.message, { cause: error });
    }
    throw error;
  }
}

export function agentClusterReads(dispatcher: Pick<OperationDispatcher, 'execute'>): ClusterReads {
  return {
    async describe(account: string): Promise<AccountDescription> {
      return accountDescriptionSchema.parse(await call(dispatcher, account, 'describeAccount', {}));
    },
    async list(account, of): Promise<KubeObject[]> {
      const items: KubeObject[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await call(dispatcher, account, 'list', {
          ...of,
          scrubbed: true,
          ...(token === undefined ? {} : { continue: token }),
        });
        if (!isRecord(answer)) break;
        if (Array.isArray(answer.items)) items.push(...answer.items.filter(isRecord));
        token = typeof answer.continue === 'string' ? answer.continue : undefined;
        if (token === undefined) break;
      }
      return items;
    },
  };
}
