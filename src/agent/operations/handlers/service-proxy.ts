// `serviceProxy`: one HTTP request to a Service, through the API server's service proxy subresource
// and as the agent's own identity (it needs `get` on `services/proxy` in the namespace). The answer
// comes back as the API server gave it: the Service's status, headers and body (bounded), or the API
// server's own refusal (no such Service, no ready endpoint) with its Status body, which says why
// better than a code would. The API server drops the agent's credentials before it dials the
// endpoint; the caller's credential headers were never sent (forwardableRequestHeaders).
import {
  forwardableRequestHeaders,
  type HandlerResult,
  isContainedPath,
  serviceProxyRoot,
} from '../../../contract/index.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler } from '../operation-handler.ts';

export const serviceProxyHandler: Handler<'serviceProxy'> = {
  run: async (payload, context): Promise<HandlerResult<'serviceProxy'>> => {
    // The contract's schema checked it already; checked again where the path is joined, since a
    // `..` that reached the URL parser would leave the proxy for the rest of the API.
    if (!isContainedPath(payload.path))
      throw new OperationError('INVALID_PAYLOAD', 'path: a . or .. segment', 'path');
    const root = serviceProxyRoot(payload);
    const path = `${root}${payload.path}${payload.query === '' ? '' : `?${payload.query}`}`;
    const headers = forwardableRequestHeaders(payload.headers);
    const contentType = headers['content-type'];
    delete headers['content-type'];
    const timeout = AbortSignal.timeout(payload.timeoutMs);
    try {
      const answer = await context.cluster.http.exchange(
        {
          verb: 'proxy',
          method: payload.method,
          path,
          headers,
          accept: headers.accept ?? '*/*',
          ...(payload.body === undefined
            ? {}
            : {
                body: Buffer.from(payload.body, 'base64'),
                contentType: contentType ?? 'application/octet-stream',
              }),
          signal: AbortSignal.any([context.signal, timeout]),
        },
        payload.maxResponseBytes,
      );
      return {
        status: answer.status,
        headers: answer.headers,
        body: answer.body.toString('base64'),
        truncated: answer.truncated,
      };
    } catch (error) {
      if (context.signal.aborted || !timeout.aborted) throw error;
      throw new OperationError(
        'DEADLINE_EXCEEDED',
        `Service ${payload.namespace}/${payload.service}: no answer within ${payload.timeoutMs} ms`,
      );
    }
  },
};
