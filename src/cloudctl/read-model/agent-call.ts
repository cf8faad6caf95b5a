// Reads and changes the cache does not answer (logs, a Job's cancel) go to the account's agent; its
// failures become the HTTP API's: 503 without an agent, 502 when the agent or the cluster failed.
import { CloudctlError } from '../errors.ts';
import { HttpError } from '../http/index.ts';
import type { ReadRouteDeps } from './route-deps.ts';

/** Runs the operation on the account's agent and answers its result; `what` names it in errors. */
export async function agentCall(
  deps: ReadRouteDeps,
  account: string,
  type: string,
  payload: unknown,
  what: string,
): Promise<unknown> {
  let outcome: Awaited<ReturnType<ReadRouteDeps['operations']['execute']>>;
  try {
    outcome = await deps.operations.execute({ account, type, payload });
  } catch (error) {
    if (
      error instanceof CloudctlError &&
      (error.code === 'AGENT_NOT_CONNECTED' || error.code === 'SESSION_CLOSED')
    ) {
      throw new HttpError('AGENT_UNAVAILABLE', error.message, { cause: error });
    }
    if (error instanceof CloudctlError && error.code === 'OPERATION_TIMEOUT') {
      throw new HttpError('AGENT_FAILED', error.message, { cause: error });
    }
    throw error;
  }
  if (outcome.outcome === 'failed') {
    throw new HttpError('AGENT_FAILED', `the agent could not ${what}: ${outcome.error ?? ''}`);
  }
  return outcome.result;
}
