// `httpRequest`: an HTTP call made from the agent's network, for endpoints only it can reach (webhooks
// with `networkMode: remoteNetworkAgent`). Only http and https; the response body is cut at a limit
// and the result says so. Secret header values come as `encrypted:` references, resolved here with the
// agent's own engines just before sending: the value never passes through the control plane, its
// database or a log, and no error message quotes it.

import { fetch } from 'undici';
import type { HandlerResult, ParsedPayload } from '../../../contract/index.ts';
import { readBounded } from '../../../lib/bounded-body.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler } from '../operation-handler.ts';

export const httpRequestHandler: Handler<'httpRequest'> = {
  run: async (payload, context) => {
    const url = new URL(payload.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OperationError(
        'INVALID_PAYLOAD',
        `url: only http and https are allowed, found ${url.protocol}`,
        'url',
      );
    }
    const headers = { ...payload.headers };
    for (const [name, reference] of Object.entries(payload.secretHeaders)) {
      let value: string;
      try {
        value = await context.secret(reference);
      } catch (error) {
        throw new OperationError(
          'SECRET_UNRESOLVED',
          `header ${name} (${reference}): ${error instanceof Error ? error.message : String(error)}`,
          `secretHeaders.${name}`,
        );
      }
      // undici's error for a bad header value would quote it.
      if (/[\r\n\0]/.test(value))
        throw new OperationError(
          'INVALID_PAYLOAD',
          `header ${name}: the value of ${reference} holds a line break or NUL`,
          `secretHeaders.${name}`,
        );
      headers[name] = value;
    }
    const timeout = AbortSignal.timeout(payload.timeoutMs);
    try {
      return await send(url, headers, payload, AbortSignal.any([context.signal, timeout]));
    } catch (error) {
      // The operation's own deadline or the agent's shutdown: the executor codes those.
      if (context.signal.aborted) throw error;
      if (timeout.aborted)
        throw new OperationError(
          'DEADLINE_EXCEEDED',
          `${url.host}: no answer within ${payload.timeoutMs} ms`,
        );
      // fetch throws only when no answer came (an HTTP error status is an answer): the connection
      // was refused, reset or cut, or the name did not resolve.
      throw new OperationError('UNREACHABLE', `${url.host}: ${connectionFailure(error)}`);
    }
  },
};

/** undici's 'fetch failed' with its cause's code (ECONNREFUSED, UND_ERR_SOCKET, …) when it has one. */
function connectionFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  if (cause === undefined) return message;
  const code = Reflect.get(cause, 'code');
  return `${message}: ${typeof code === 'string' ? `${code} ` : ''}${cause.message}`.trim();
}

async function send(
  url: URL,
  headers: Record<string, string>,
  payload: ParsedPayload<'httpRequest'>,
  signal: AbortSignal,
): Promise<HandlerResult<'httpRequest'>> {
  const response = await fetch(url, {
    method: payload.method,
    headers,
    body: payload.body,
    redirect: 'manual',
    signal,
  });
  const { bytes, truncated } = await readBounded(response.body, payload.maxResponseBytes);
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: bytes.toString('utf8'),
    truncated,
  };
}
