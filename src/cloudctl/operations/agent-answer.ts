// What asking an agent answers to the HTTP API, written once for every route that asks one (reads
// the cache cannot answer, a converter's look at the cluster, a Job's cancel): 503 AGENT_UNAVAILABLE
// when no agent can take the operation now, 502 AGENT_FAILED when the agent or its cluster failed or
// no result came; the agent's code leads the message (`NOT_FOUND: …`). Routes that read one object
// ask with `askAgentIfPresent`, which answers "no such object" (ABSENT_CODES) as undefined.
import {
  ABSENT_CODES,
  describeFailure,
  type OperationFailure,
  type OperationResult,
  type OperationType,
} from '../../contract/index.ts';
import { CloudctlError } from '../errors.ts';
import { HttpError } from '../http/index.ts';
import type { OperationDispatcher, OperationOutcome, OperationRequest } from './operation-dispatcher.ts';

/** What a route needs of the dispatcher to ask an agent. */
export type AgentOperations = Pick<OperationDispatcher, 'execute'>;

/** How an ask went wrong: the agent's failure, or what the dispatcher threw (no agent, no result). */
export type FailedAnswer = { failure: OperationFailure } | { thrown: unknown };

/** The HTTP error for an operation that could not be carried out; `what` says what was asked. */
export function agentAnswerError(answer: FailedAnswer, what: string): unknown {
  if ('failure' in answer)
    return new HttpError('AGENT_FAILED', `the agent could not ${what}: ${describeFailure(answer.failure)}`);
  const { thrown } = answer;
  if (!(thrown instanceof CloudctlError)) return thrown;
  if (thrown.code === 'AGENT_NOT_CONNECTED' || thrown.code === 'SESSION_CLOSED')
    return new HttpError('AGENT_UNAVAILABLE', thrown.message, { cause: thrown });
  if (thrown.code === 'OPERATION_TIMEOUT')
    return new HttpError('AGENT_FAILED', thrown.message, { cause: thrown });
  return thrown;
}

async function send<T extends OperationType>(
  operations: AgentOperations,
  request: OperationRequest<T>,
  what: string,
): Promise<OperationOutcome<T>> {
  try {
    return await operations.execute(request);
  } catch (thrown) {
    throw agentAnswerError({ thrown }, what);
  }
}

/** Sends the operation and answers its result; every way it can fail is the HTTP API's error. */
export async function askAgent<T extends OperationType>(
  operations: AgentOperations,
  request: OperationRequest<T>,
  what: string,
): Promise<OperationResult<T>> {
  const outcome = await send(operations, request, what);
  if (outcome.outcome === 'failed') throw agentAnswerError({ failure: outcome.error }, what);
  return outcome.result;
}

/** As `askAgent`, but an object the cluster does not have (or a kind it does not serve) is undefined. */
export async function askAgentIfPresent<T extends OperationType>(
  operations: AgentOperations,
  request: OperationRequest<T>,
  what: string,
): Promise<OperationResult<T> | undefined> {
  const outcome = await send(operations, request, what);
  if (outcome.outcome === 'succeeded') return outcome.result;
  if (ABSENT_CODES.has(outcome.error.code)) return undefined;
  throw agentAnswerError({ failure: outcome.error }, what);
}
