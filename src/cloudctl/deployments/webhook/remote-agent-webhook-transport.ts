// `networkMode: remoteNetworkAgent`: the request is sent by an agent on the job's network, as its
// `httpRequest` operation. The caller binds `execute` to the agent that must send it (the webhook's
// `agentIdentifier`, or the one serving the target's account); this module only shapes the payload
// and reads the agent's answer. The agent reports a failed fetch as a failed operation, so its error
// text decides whether the request got no answer (worth another attempt) or was refused outright.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { WEBHOOK_ATTEMPT_TIMEOUT_MS, WEBHOOK_RESPONSE_LIMIT_BYTES } from './direct-webhook-transport.ts';
import {
  WebhookConnectionError,
  type WebhookTransport,
  type WebhookTransportAnswer,
} from './webhook-transport.ts';

/** The agent's `httpRequest` payload, as the contract both programs import defines it. */
export type HttpRequestPayload = OperationPayload<'httpRequest'>;

/** How an operation ended, as the operation dispatcher reports it. */
export interface AgentOperationOutcome {
  outcome: 'succeeded' | 'failed';
  result: unknown;
  error: string | null;
}

export type ExecuteOnAgent = (
  type: 'httpRequest',
  payload: HttpRequestPayload,
) => Promise<AgentOperationOutcome>;

const httpRequestResultSchema = z.object({
  status: z.int().min(100).max(599),
  body: z.string(),
  truncated: z.boolean().optional(),
});

/**
 * Failed outcomes where the request never got an answer. The agent reports `<CODE>: <message>`:
 * UNREACHABLE and SHUTTING_DOWN mean it did not send the request; DEADLINE_EXCEEDED that no answer
 * came in time; undici's 'fetch failed' (FAILED) and socket error codes that the network failed.
 */
const CONNECTION_FAILURE =
  /^(UNREACHABLE|SHUTTING_DOWN|DEADLINE_EXCEEDED):|fetch failed|terminated|aborted due to timeout|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|socket hang up|UND_ERR_(CONNECT_TIMEOUT|SOCKET|HEADERS_TIMEOUT|BODY_TIMEOUT)/i;

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
      let outcome: AgentOperationOutcome;
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
        const reason = `the agent could not send it: ${outcome.error ?? 'no reason given'}`;
        if (CONNECTION_FAILURE.test(outcome.error ?? '')) throw new WebhookConnectionError(reason);
        throw new Error(reason);
      }
      const result = httpRequestResultSchema.safeParse(outcome.result);
      if (!result.success)
        throw new Error(
          `the agent's httpRequest result is not {status, body}: ${result.error.issues[0]?.message}`,
        );
      return { status: result.data.status, body: result.data.body };
    },
  };
}
