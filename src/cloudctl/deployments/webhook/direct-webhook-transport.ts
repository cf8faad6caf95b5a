// `networkMode: direct`: cloudctl itself sends the request with undici's fetch. Redirects are not
// followed (a 3xx is the job's answer, and following it would carry the Authorization header to
// wherever the Location points); each attempt has its own time limit; the response body is read only
// up to a limit, since a job that streams without end must not fill cloudctl's memory.
import { fetch } from 'undici';
import { readBounded } from '../../../lib/bounded-body.ts';
import { isRecord } from '../../../lib/is-record.ts';
import {
  WebhookConnectionError,
  type WebhookTransport,
  type WebhookTransportAnswer,
} from './webhook-transport.ts';

export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 30_000;
export const WEBHOOK_RESPONSE_LIMIT_BYTES = 64 * 1024;

export interface DirectWebhookTransportOptions {
  /** Time for one attempt, connection to the end of the body. Default WEBHOOK_ATTEMPT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Bytes of the response body kept. Default WEBHOOK_RESPONSE_LIMIT_BYTES. */
  maxResponseBytes?: number;
}

/** Why a fetch got no answer, from the socket error undici keeps as the cause. */
function connectionFailure(error: unknown, timeoutMs: number): WebhookConnectionError | undefined {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return new WebhookConnectionError(`no answer within ${timeoutMs / 1000} s`);
  // undici rejects with TypeError('fetch failed') for every network failure, and the body stream with
  // TypeError('terminated') when the connection drops mid-answer; other TypeErrors (an invalid header,
  // a GET with a body) are refused before anything is sent and are not retried.
  if (!(error instanceof TypeError) || (error.message !== 'fetch failed' && error.message !== 'terminated'))
    return undefined;
  const cause = error.cause;
  if (!isRecord(cause)) return new WebhookConnectionError('connection failed');
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  const message = typeof cause.message === 'string' ? cause.message : undefined;
  const reason =
    code !== undefined && message !== undefined && !message.includes(code)
      ? `${code}: ${message}`
      : (message ?? code ?? 'connection failed');
  return new WebhookConnectionError(reason);
}

export function directWebhookTransport(options: DirectWebhookTransportOptions = {}): WebhookTransport {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const limit = options.maxResponseBytes ?? WEBHOOK_RESPONSE_LIMIT_BYTES;
  return {
    // The sender resolves secret headers with cloudctl's engines before a direct send.
    resolvesSecrets: false,
    async send(request): Promise<WebhookTransportAnswer> {
      try {
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const { bytes } = await readBounded(response.body, limit);
        return { status: response.status, body: bytes.toString('utf8') };
      } catch (error) {
        throw connectionFailure(error, timeoutMs) ?? error;
      }
    },
  };
}
