// `serviceProxy`: one HTTP request to a Service of the account's cluster, sent by the agent through the
// API server's service proxy subresource (`/api/v1/namespaces/{ns}/services/{scheme:}{name}:{port}/proxy/
// {path}`). cloudctl's preview URLs ride on it: the agent already dials out to cloudctl and already
// holds credentials the API server accepts, so a Service becomes reachable from outside the cluster
// with nothing opened on the cluster's side. Bodies cross as base64 (they may be any bytes) and are
// bounded both ways: a result must fit gRPC's 4 MiB message with room to spare.
import { z } from 'zod';

/** The most body bytes carried either way: 1 MiB, 1.33 MiB as base64, well inside a 4 MiB message. */
export const SERVICE_PROXY_MAX_BODY_BYTES = 1 << 20;

/** A Service name (RFC 1035 label), as the API server takes it. */
export const serviceNameSchema = z
  .string()
  .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'expected a Service name (lower case letters, digits and -)');

const base64 = z.base64({ error: 'expected base64' });

export const serviceProxyPayload = z.object({
  namespace: z.string().min(1).max(63),
  service: serviceNameSchema,
  /** The Service's port, by name or number; empty: the API server's choice (the first one). */
  port: z
    .string()
    .regex(/^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/, 'expected a port name or number')
    .max(63)
    .default(''),
  /** How the API server talks to the Service's endpoints. */
  scheme: z.enum(['http', 'https']).default('http'),
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** The path below the Service's root, starting with `/`, percent-encoded as received. */
  path: z
    .string()
    .startsWith('/')
    .max(8192)
    .refine(isContainedPath, 'expected a path without . or .. segments (plain or percent-encoded)'),
  /** The query string without its `?`, as received. */
  query: z.string().max(8192).default(''),
  /** Request headers for the Service; the agent drops hop-by-hop and credential headers again. */
  headers: z.record(z.string(), z.string()).default({}),
  body: base64.optional(),
  timeoutMs: z.int().min(1).max(120_000).default(30_000),
  maxResponseBytes: z.int().min(0).max(SERVICE_PROXY_MAX_BODY_BYTES).default(SERVICE_PROXY_MAX_BODY_BYTES),
});

export const serviceProxyResult = z.object({
  status: z.int().min(100).max(599),
  headers: z.record(z.string(), z.string()),
  /** The response body, base64; cut at the payload's `maxResponseBytes` when `truncated`. */
  body: z.string(),
  truncated: z.boolean(),
});

/**
 * The Service's proxy root, below which every proxied path stays. The API server writes it into the
 * Location headers and HTML links it rewrites, so cloudctl maps it back to the preview's own path.
 */
export function serviceProxyRoot(target: {
  namespace: string;
  service: string;
  port: string;
  scheme: 'http' | 'https';
}): string {
  const scheme = target.scheme === 'https' ? 'https:' : '';
  const port = target.port === '' ? '' : `:${target.port}`;
  return `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/services/${scheme}${target.service}${port}/proxy`;
}

/**
 * Request headers never carried to a Service: the hop-by-hop ones (RFC 9110 7.6.1, with those a
 * `connection` header names), the length and encoding the sender sets again, and credentials: the
 * caller's are cloudctl's (its bearer token, its session cookie), never the Service's to read.
 */
const NOT_FORWARDED = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  // The body comes back as bytes within a bound: a compressed one would be bounded compressed and
  // passed on with an encoding no one asked cloudctl for.
  'accept-encoding',
]);

/** The headers of `headers` that may go on to a Service, names in lower case. */
export function forwardableRequestHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || NOT_FORWARDED.has(lower) || named.includes(lower)) continue;
    kept[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/**
 * Whether a path may go below a Service's proxy root: no segment that is, or decodes to, `.` or `..`
 * (URL parsers resolve those, `%2e%2e` included, which would climb out of `/proxy/` to other API
 * paths under the agent's identity).
 */
export function isContainedPath(path: string): boolean {
  return path.split('/').every((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    return decoded !== '.' && decoded !== '..' && !decoded.includes('/') && !decoded.includes('\\');
  });
}
