// orchagent.v1.OperationResults: records each result once per operation id and wakes whoever waits
// for it. A redelivered result is acknowledged as a duplicate, so agents may retry freely.
import { setImmediate } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type OperationFailure, operationErrorCode } from '../../contract/index.ts';
import type { OperationResult__Output, OperationResultsHandlers } from '../../proto/index.ts';
import type { AgentAuthenticator } from '../auth/index.ts';
import { RpcFailure } from '../grpc/index.ts';
import type { OperationDispatcher, RecordedResult } from './operation-dispatcher.ts';
import type { OperationStore } from './operation-store.ts';

/** What the results service uses: passed in, so tests can drive the clock and read the logs. */
export interface OperationResultsRpcDeps {
  authenticator: AgentAuthenticator;
  dispatcher: Pick<OperationDispatcher, 'resultRecorded' | 'resultReported' | 'resultStorable'>;
  store: { operations: OperationStore };
  logger: Logger;
  now: () => Date;
}

const REPORT = '/orchagent.v1.OperationResults/Report';

function parseResult(bytes: Buffer): { text: string | null; value: unknown } {
  if (bytes.length === 0) return { text: null, value: undefined };
  const text = bytes.toString('utf8');
  try {
    return { text, value: JSON.parse(text) };
  } catch {
    throw new RpcFailure(status.INVALID_ARGUMENT, 'result is not JSON');
  }
}

/**
 * A failure as reported: its code as its own field. A failure without a code (an older agent) is
 * FAILED; one with a code this cloudctl does not know (a newer agent) is FAILED too, the agent's code
 * kept at the head of its message so people still see it.
 */
function failure(request: OperationResult__Output): OperationFailure | null {
  if (request.outcome !== 'FAILED') return null;
  const code = operationErrorCode(request.errorCode);
  const unknown = code === 'FAILED' && request.errorCode !== '' && request.errorCode !== 'FAILED';
  return {
    code,
    message: unknown ? `${request.errorCode}: ${request.error}` : request.error,
    ...(request.errorPath === '' ? {} : { path: request.errorPath }),
  };
}

export function operationResultsHandlers(deps: OperationResultsRpcDeps): OperationResultsHandlers {
  return {
    Report: (call, callback) => {
      const request = call.request;
      void (async () => {
        const auth = await deps.authenticator.authenticate(call, REPORT);
        if (!auth.ok) {
          callback(auth.refusal);
          return;
        }
        const { agentId } = auth;
        if (request.operationId === '')
          throw new RpcFailure(status.INVALID_ARGUMENT, 'operation_id is empty');
        if (request.outcome !== 'SUCCEEDED' && request.outcome !== 'FAILED') {
          throw new RpcFailure(status.INVALID_ARGUMENT, `outcome ${request.outcome}`);
        }
        const outcome = request.outcome === 'SUCCEEDED' ? 'succeeded' : 'failed';
        const result = parseResult(request.result);
        const error = failure(request);
        // An operation sent while its row was written: its result waits for the row (a row that
        // could not be written is UNAVAILABLE here, so the agent tries again).
        await deps.dispatcher.resultStorable(request.operationId);
        const reported: RecordedResult = { id: request.operationId, outcome, result: result.value, error };
        // The task waiting here takes the result now, and its writes (a deploy's completion) queue
        // before the record's: on the embedded database statements run one after another, and the
        // record is on nobody's path but the agent's (docs/decisions.md, "An operation's result
        // reaches its task before it is recorded").
        const handedOver = deps.dispatcher.resultReported(agentId, reported);
        if (handedOver) await setImmediate();
        const recorded = await deps.store.operations.recordResult(
          agentId,
          { id: request.operationId, outcome, result: result.text, error },
          deps.now(),
        );
        if (recorded === 'unknown') {
          throw new RpcFailure(
            status.NOT_FOUND,
            `operation ${request.operationId} was not sent to this agent`,
          );
        }
        if (recorded === 'recorded' && !handedOver) deps.dispatcher.resultRecorded(reported);
        callback(null, { duplicate: recorded === 'duplicate' });
      })().catch((error: unknown) => {
        if (error instanceof RpcFailure) {
          callback({ code: error.code, details: error.message });
          return;
        }
        deps.logger.error(
          { err: error, operationId: request.operationId, method: REPORT },
          'cannot record operation result',
        );
        callback({ code: status.UNAVAILABLE, details: 'cannot record the result; report it again' });
      });
    },
  };
}
