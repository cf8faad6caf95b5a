// Sends a rendered webhook request: resolves its secret headers just before sending, makes the first
// attempt and up to `retryCount` more, and says how it ended. Only a missing answer (no connection,
// reset, DNS, timeout), 5xx and 429 are tried again, `Backoff` apart: those may pass, while a 3xx or
// another 4xx would be answered the same way every time. Retries exhausted is "unreachable", as the
// spec's Errors item 4 says. Resolved secret values live in this call only: they are in no log line
// and no error message, and any text that comes back from the network is scrubbed of them before it
// is shown, in case an error echoes what was sent.
import type { Logger } from 'pino';
import { Backoff, type BackoffOptions } from '../../../lib/backoff.ts';
import { DeploymentError } from '../deployment-errors.ts';
import { describeWebhookRequest } from './describe-webhook-request.ts';
import type { RenderedWebhookRequest } from './render-webhook-request.ts';
import {
  WebhookConnectionError,
  type WebhookTransport,
  type WebhookTransportAnswer,
  type WebhookTransportRequest,
} from './webhook-transport.ts';

/** Retry delays: 1 s, 2 s, 4 s … up to 30 s, ±20 %. */
export const WEBHOOK_RETRY_BACKOFF: BackoffOptions = {
  initialDelayMs: 1_000,
  multiplier: 2,
  jitter: 0.2,
  maxDelayMs: 30_000,
};

export interface WebhookSendDeps {
  transport: WebhookTransport;
  /** Resolves a header's `encrypted:` reference to its value (see webhook-secrets.ts). */
  secrets: (reference: string) => Promise<string>;
  logger: Logger;
  /** Overrides WEBHOOK_RETRY_BACKOFF, in part or whole (tests pass a clock or short delays). */
  backoff?: Partial<BackoffOptions>;
}

export interface WebhookResponse {
  status: number;
  /** The response body, cut at the transport's limit. */
  body: string;
  /** Attempts made, the successful one included. */
  attempts: number;
}

const SECRET_SHOWN = '<secret>';

function retryable(status: number): boolean {
  return status >= 500 || status === 429;
}

/** Resolves every secret header; a failure names the header and the reference, never a value. */
async function resolveHeaders(
  request: RenderedWebhookRequest,
  described: string,
  secrets: WebhookSendDeps['secrets'],
): Promise<{ headers: Record<string, string>; values: string[] }> {
  const headers: Record<string, string> = {};
  const values: string[] = [];
  for (const header of request.headers) {
    if (!('secretReference' in header)) {
      headers[header.key] = header.value;
      continue;
    }
    let value: string;
    try {
      value = await secrets(header.secretReference);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? `${String(error.code)}: ` : '';
      throw new DeploymentError(
        'WEBHOOK_SECRET_UNRESOLVED',
        `${described}: header '${header.key}' (${header.secretReference}) cannot be resolved, nothing was sent: ${code}${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
    // undici's message for an invalid header value quotes the value: refuse it here, without it.
    if (/[\r\n\0]/.test(value))
      throw new DeploymentError(
        'WEBHOOK_HEADER_INVALID',
        `${described}: header '${header.key}': the value of ${header.secretReference} holds a line break or NUL`,
      );
    headers[header.key] = value;
    if (value !== '') values.push(value);
  }
  return { headers, values };
}

/** For a transport that resolves secrets on its side: plain headers, and the references as they are. */
function passReferences(request: RenderedWebhookRequest): {
  headers: Record<string, string>;
  secretHeaders: Record<string, string>;
  values: string[];
} {
  const headers: Record<string, string> = {};
  const secretHeaders: Record<string, string> = {};
  for (const header of request.headers) {
    if ('secretReference' in header) secretHeaders[header.key] = header.secretReference;
    else headers[header.key] = header.value;
  }
  return { headers, secretHeaders, values: [] };
}

type Attempt = { answer: WebhookTransportAnswer } | { unanswered: string } | { failed: string };

/** One attempt, sorted: an HTTP answer, no answer (retryable), or refused before sending (not). */
async function attemptOnce(
  transport: WebhookTransport,
  request: WebhookTransportRequest,
  scrub: (text: string) => string,
): Promise<Attempt> {
  try {
    return { answer: await transport.send(request) };
  } catch (error) {
    const text = scrub(error instanceof Error ? error.message : String(error));
    return error instanceof WebhookConnectionError ? { unanswered: text } : { failed: text };
  }
}

export async function sendWebhookRequest(
  request: RenderedWebhookRequest,
  options: { retryCount: number },
  deps: WebhookSendDeps,
): Promise<WebhookResponse> {
  const described = describeWebhookRequest(request);
  const { headers, secretHeaders, values } = deps.transport.resolvesSecrets
    ? passReferences(request)
    : { ...(await resolveHeaders(request, described, deps.secrets)), secretHeaders: {} };
  const scrub = (text: string) => values.reduce((out, value) => out.replaceAll(value, SECRET_SHOWN), text);
  const attempts = options.retryCount + 1;
  let wake = () => {};
  const backoff = new Backoff(() => wake(), { ...WEBHOOK_RETRY_BACKOFF, ...deps.backoff });
  const log = deps.logger.child({ webhook: request.webhook });
  const wire: WebhookTransportRequest = {
    method: request.method,
    url: request.url,
    headers,
    secretHeaders,
    ...(request.body === undefined ? {} : { body: request.body }),
  };

  for (let attempt = 1; ; attempt++) {
    const at = { attempt, attempts };
    const sent = await attemptOnce(deps.transport, wire, scrub);
    let reason: string;
    if ('failed' in sent) {
      log.warn({ ...at, error: sent.failed }, `${described}: attempt ${attempt} failed: ${sent.failed}`);
      throw new DeploymentError('WEBHOOK_SEND_FAILED', `${described}: ${sent.failed} (not retried)`);
    }
    if ('unanswered' in sent) reason = sent.unanswered;
    else {
      const { status, body } = sent.answer;
      if (status >= 200 && status < 300) {
        log.info({ ...at, status }, `${described}: attempt ${attempt} answered ${status}`);
        return { status, body, attempts: attempt };
      }
      if (!retryable(status)) {
        log.warn({ ...at, status }, `${described}: attempt ${attempt} answered ${status}`);
        throw new DeploymentError(
          'WEBHOOK_REJECTED',
          `${described}: answered ${status} (attempt ${attempt} of ${attempts}; not retried)`,
        );
      }
      reason = `answered ${status}`;
    }
    if (attempt >= attempts) {
      log.warn(
        { ...at, error: reason },
        `${described}: attempt ${attempt} of ${attempts}: ${reason}; giving up`,
      );
      throw new DeploymentError(
        'WEBHOOK_UNREACHABLE',
        `${described}: no answer after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`,
      );
    }
    const waited = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const delayMs = Math.round(backoff.runOnce());
    log.warn(
      { ...at, error: reason, retryInMs: delayMs },
      `${described}: attempt ${attempt} of ${attempts}: ${reason}; retrying in ${delayMs} ms`,
    );
    await waited;
  }
}
