// One request to a preview URL, carried to its Service and back: the token looked up (404 unknown,
// 410 revoked or expired, saying when and by whom), the request sent as the agent's `serviceProxy`
// operation on the preview's account, and the Service's answer returned with its status, the headers
// safe to give on cloudctl's own origin, and its body (bounded: SERVICE_PROXY_MAX_BODY_BYTES each
// way). The Service's pages are served from cloudctl's origin, so they are sandboxed there (a script
// of theirs cannot read cloudctl's pages or its session cookie), may set no cookie on it, and send
// no Referer with the token in it. The API server rewrites the links of HTML it proxies to its own
// proxy path; those are mapped back to the preview's.
import {
  forwardableRequestHeaders,
  SERVICE_PROXY_MAX_BODY_BYTES,
  serviceProxyRoot,
} from '../../contract/index.ts';
import { HttpError, Reply } from '../http/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import { previewPath, previewState } from './preview-record.ts';
import type { PreviewStore, StoredPreview } from './preview-store.ts';

/** How long the agent waits for the Service; cloudctl waits a little longer for the agent. */
const SERVICE_TIMEOUT_MS = 30_000;
const AGENT_GRACE_MS = 5_000;

/** Response headers not given back: hop-by-hop ones, the length (set again), cookies and policies of
 * the Service's own origin, which on cloudctl's origin would apply to cloudctl. */
const NOT_RETURNED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'content-length',
  'set-cookie',
  'set-cookie2',
  'content-security-policy',
  'strict-transport-security',
  'alt-svc',
  'audit-id',
]);

/** What every preview answer carries: the Service's page is its own opaque origin, and says nothing of its URL. */
const PREVIEW_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-downloads allow-modals',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

export const PREVIEW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type PreviewMethod = (typeof PREVIEW_METHODS)[number];

export interface PreviewRequest {
  token: string;
  method: PreviewMethod;
  /** Below the preview's root, starting with `/`, as received. */
  path: string;
  /** The query string without `?`. */
  query: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer | undefined;
}

export interface PreviewForwardingDeps {
  store: Pick<PreviewStore, 'byToken'>;
  agents: AgentOperations;
  now: () => Date;
}

/** The preview the token opens; 404 for none, 410 for one revoked or expired. */
export async function usablePreview(
  store: Pick<PreviewStore, 'byToken'>,
  token: string,
  now: Date,
): Promise<StoredPreview> {
  const preview = await store.byToken(token);
  if (preview === undefined) throw new HttpError('NOT_FOUND', 'no preview has this URL');
  const what = `the preview of Service ${preview.namespace}/${preview.service} (deployment ${preview.deploymentId})`;
  switch (previewState(preview, now)) {
    case 'REVOKED':
      throw new HttpError(
        'GONE',
        `${what} was revoked at ${preview.revoked?.at.toISOString()} by ${preview.revoked?.by}`,
      );
    case 'EXPIRED':
      throw new HttpError('GONE', `${what} expired at ${preview.expiresAt.toISOString()}`);
    case 'ACTIVE':
      return preview;
  }
}

/** A path the API server wrote with its proxy root, written with the preview's instead. */
function mapBack(value: string, proxyRoot: string, ownRoot: string): string {
  if (value.startsWith(proxyRoot)) return ownRoot + value.slice(proxyRoot.length);
  if (value.startsWith('/') && !value.startsWith('//')) return ownRoot + value;
  return value;
}

function answerHeaders(
  headers: Record<string, string>,
  proxyRoot: string,
  ownRoot: string,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (NOT_RETURNED.has(lower)) continue;
    kept[lower] = lower === 'location' ? mapBack(value, proxyRoot, ownRoot) : value;
  }
  return { ...kept, ...PREVIEW_HEADERS };
}

export async function forwardPreviewRequest(
  deps: PreviewForwardingDeps,
  request: PreviewRequest,
): Promise<Reply> {
  const preview = await usablePreview(deps.store, request.token, deps.now());
  const target = {
    namespace: preview.namespace,
    service: preview.service,
    port: preview.port,
    scheme: 'http' as const,
  };
  const headers = forwardableRequestHeaders(request.headers);
  const answer = await askAgent(
    deps.agents,
    {
      account: preview.account,
      type: 'serviceProxy',
      payload: {
        ...target,
        method: request.method,
        path: request.path,
        query: request.query,
        headers,
        ...(request.body === undefined || request.body.length === 0
          ? {}
          : { body: request.body.toString('base64') }),
        timeoutMs: SERVICE_TIMEOUT_MS,
      },
      timeoutMs: SERVICE_TIMEOUT_MS + AGENT_GRACE_MS,
    },
    `reach Service ${preview.namespace}/${preview.service}`,
  );
  if (answer.truncated)
    throw new HttpError(
      'RESPONSE_TOO_LARGE',
      `Service ${preview.namespace}/${preview.service} answered more than ${SERVICE_PROXY_MAX_BODY_BYTES} bytes, the most a preview carries`,
    );
  const proxyRoot = serviceProxyRoot(target);
  const ownRoot = previewPath(request.token);
  const answered = answerHeaders(answer.headers, proxyRoot, ownRoot);
  let body = Buffer.from(answer.body, 'base64');
  if ((answered['content-type'] ?? '').startsWith('text/html'))
    body = Buffer.from(body.toString('utf8').replaceAll(proxyRoot, ownRoot), 'utf8');
  return new Reply(answer.status, body, answered['content-type'] ?? 'application/octet-stream', answered);
}
