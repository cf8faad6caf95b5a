// `networkMode: remoteNetworkAgent`: the request is sent by an agent on the job's network, as its
// `httpRequest` operation. The caller binds `execute` to the agent that must send it (the webhook's
// `agentIdentifier`, or the one serving the target's account); this module only shapes the payload
// and reads the agent's answer. The agent reports a failed fetch as a failed operation, whose code
// says whether the request got no answer (worth another attempt) or was refused outright.
import { describeFailure, type OperationErrorCode, type OperationPayload } from '../../../contract/index.ts';
import type { OperationOutcome } from '../../operations/index.ts';
import { WEBHOOK_ATTEMPT_TIMEOUT_MS, WEBHOOK_RESPONSE_LIMIT_BYTES } from './direct-webhook-transport.ts';
import {
  WebhookConnectionError,
  type WebhookTransport,
  type WebhookTransportAnswer,
} from './webhook-transport.ts';

/** The agent's `httpRequest` payload, as the contract both programs import defines it. */
export type HttpRequestPayload = OperationPayload<'httpRequest'>;

export type ExecuteOnAgent = (
  type: 'httpRequest',
  payload: HttpRequestPayload,
) => Promise<OperationOutcome<'httpRequest'>>;

/**
 * The codes of a request that never got an answer: UNREACHABLE (the agent could not connect, or the
 * connection failed), SHUTTING_DOWN (the agent did not send it), DEADLINE_EXCEEDED (no answer in time).
 */
const NO_ANSWER: ReadonlySet<OperationErrorCode> = new Set([
  'UNREACHABLE',
  'SHUTTING_DOWN',
  'DEADLINE_EXCEEDED',
]);

export interface RemoteAgentWebhookTransportOptions {
  /** Time for one attempt on the agent. Default WEBHOOK_ATTEMPT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Bytes of the response body the agent sends back. Default WEBHOOK_RESPONSE_LIMIT_BYTES. */
  maxResponseBytes?: number;
}

export function remoteAgentWebhookTransport(
  execute: ExecuteOnAgent,
  options: RemoteAgentWebhookTransportOptions = {},
): WebhookTransport {
  return {
    resolvesSecrets: true,
    async send(request): Promise<WebhookTransportAnswer> {
      let outcome: OperationOutcome<'httpRequest'>;
      try {
        outcome = await execute('httpRequest', {
          method: request.method,
          url: request.url,
          headers: request.headers,
          secretHeaders: request.secretHeaders,
          ...(request.body === undefined ? {} : { body: request.body }),
          timeoutMs: options.timeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS,
          maxResponseBytes: options.maxResponseBytes ?? WEBHOOK_RESPONSE_LIMIT_BYTES,
        });
      } catch (error) {
        // No agent serves the account, or its result never came: the request may not have left,
        // and a later attempt may find the agent back.
        throw new WebhookConnectionError(
          `the agent could not be asked to send it: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (outcome.outcome === 'failed') {
        const reason = `the agent could not send it: ${describeFailure(outcome.error)}`;
        if (NO_ANSWER.has(outcome.error.code)) throw new WebhookConnectionError(reason);
        throw new Error(reason);
      }
      return { status: outcome.result.status, body: outcome.result.body };
    },
  };
}
