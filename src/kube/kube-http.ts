// Requests to one cluster's API server. client-node's KubeConfig applies the credentials (tokens,
// exec plugins, client certificates, TLS settings) to each request, and a token source (a Google
// token with the account's scopes) the bearer token when there is one; the request itself is ours, so
// bodies stay raw JSON (no typed-model round trip that would drop unknown fields) and watches stream
// line by line without holding objects.
import type { Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { type Dispatcher, getGlobalDispatcher } from 'undici';
import pkg from '../../package.json' with { type: 'json' };
import { type BoundedBody, readBounded } from '../lib/bounded-body.ts';
import { CodedError } from '../lib/coded-error.ts';
import { errorCode } from '../lib/is-record.ts';
import { type RetryPolicy, withRetries } from '../lib/retry.ts';
import { abortableSettlers } from '../lib/signalled-wait.ts';
import type { BearerTokenSource } from './google-token-source.ts';
import { KubeApiError } from './kube-api-error.ts';
import { shareDispatchers } from './shared-dispatchers.ts';
import { transportCause } from './transport-cause.ts';
import { WatchStream } from './watch-stream.ts';

/**
 * Who is asking, in the API server's audit log and metrics: as client-go's clients name themselves
 * (`kubectl/v1.31.0 (linux/amd64) kubernetes/…`), so a cluster's admins can tell the agent's requests
 * from their other clients'.
 */
const USER_AGENT = `orch-agent/${pkg.version} (${process.platform}/${process.arch}) node/${process.version}`;

export type KubeVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'discovery'
  | 'proxy';

export interface KubeRequest {
  verb: KubeVerb;
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  accept?: string;
  /** More headers (a proxied request's own); the credentials and `accept` above still win. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface KubeResponse {
  status: number;
  body: unknown;
}

/** A response as `exchange` gives it: nothing parsed, the body bounded. */
export interface KubeExchange {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

/** Node's codes for a server certificate that did not verify (OpenSSL's, and the host name check). */
const CERTIFICATE_CODE = /CERT|SIGNATURE|ALTNAME/;

/** The API server could not be reached at all (refused, reset, DNS, TLS). */
export class KubeTransportError extends CodedError<'KUBE_UNREACHABLE'> {
  constructor(server: string, cause: unknown) {
    const inner = transportCause(cause);
    const code = errorCode(inner);
    // A bare OpenSSL code does not tell a user that the certificate is the problem, nor what to do.
    const hint =
      CERTIFICATE_CODE.test(code) && inner instanceof Error
        ? ` (the API server's certificate was refused: ${inner.message}; give the cluster's CA in the kubeconfig, or set insecure: true on the account to skip verification)`
        : '';
    super('KUBE_UNREACHABLE', `cannot reach ${server}: ${code}${hint}`, { cause });
  }
}

/**
 * The answer, or the signal's reason as soon as it aborts. undici's `request` does not give up a
 * connection being opened when its signal aborts (it waits out the connect timeout, 10 s; `fetch`
 * rejected at once): a deadline or a shutdown must not wait for that. An answer that comes after the
 * abort is dropped, its body destroyed so its connection is freed.
 */
function untilAborted(
  pending: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const settlers = abortableSettlers<Dispatcher.ResponseData>(signal);
  pending.then((answer) => {
    if (signal.aborted) answer.body.destroy();
    else settlers.resolve(answer);
  }, settlers.reject);
  return settlers.promise;
}

export interface KubeHttpDeps {
  /** Called once per answered request, for the requests metric. */
  onResponse?: (verb: KubeVerb, code: number) => void;
  /**
   * `orchestrator.retries` (spec, Errors 1): every request is retried under it, reads and writes of
   * every operation, discovery and the version check alike. Watch streams are not: the watch loop
   * resumes or relists them itself.
   */
  retry?: RetryPolicy;
  /** Called before each retry, with the error that caused it. */
  onRetry?: (verb: KubeVerb, error: unknown) => void;
  /** Each request's bearer token (`ResolvedKubeConfig.tokenSource`); its failure fails the request. */
  tokenSource?: BearerTokenSource;
}

export class KubeHttp {
  readonly server: string;
  readonly #kc: KubeConfig;
  readonly #deps: KubeHttpDeps;

  constructor(kubeConfig: KubeConfig, server: string, deps: KubeHttpDeps = {}) {
    this.#kc = kubeConfig;
    shareDispatchers(kubeConfig);
    this.server = server.replace(/\/$/, '');
    this.#deps = deps;
  }

  async #send(request: KubeRequest) {
    const url = new URL(this.server + request.path);
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const context = new RequestContext(url.toString(), HttpMethod[request.method]);
    await this.#kc.applySecurityAuthentication(context);
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      ...request.headers,
      ...context.getHeaders(),
      accept: request.accept ?? 'application/json',
    };
    if (this.#deps.tokenSource !== undefined)
      headers.Authorization = `Bearer ${await this.#deps.tokenSource.token()}`;
    let body: string | Buffer | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/json';
      body =
        typeof request.body === 'string' || Buffer.isBuffer(request.body)
          ? request.body
          : JSON.stringify(request.body);
    }
    try {
      // The dispatcher's `request`, not undici's `fetch`: the same connection, without the WHATWG
      // Request, Response and web-stream objects that fetch builds for every request and every
      // chunk of a watch (docs/decisions.md, "Requests to the API server use undici's request").
      const dispatcher = (context.getDispatcher() as Dispatcher | undefined) ?? getGlobalDispatcher();
      const pending = dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers,
        body,
        signal: request.signal,
      });
      return await (request.signal === undefined ? pending : untilAborted(pending, request.signal));
    } catch (error) {
      if (request.signal?.aborted) throw error;
      this.#deps.onResponse?.(request.verb, 0);
      throw new KubeTransportError(this.server, error);
    }
  }

  async request(request: KubeRequest): Promise<KubeResponse> {
    const retry = this.#deps.retry;
    if (retry === undefined) return this.#requestOnce(request);
    return withRetries(
      () => this.#requestOnce(request),
      {
        ...retry,
        retryable: (error) => {
          const again = retry.retryable(error);
          if (again) this.#deps.onRetry?.(request.verb, error);
          return again;
        },
      },
      request.signal,
    );
  }

  async #requestOnce(request: KubeRequest): Promise<KubeResponse> {
    const response = await this.#send(request);
    const status = response.statusCode;
    this.#deps.onResponse?.(request.verb, status);
    const text = await response.body.text();
    // Some endpoints (OpenAPI v3) send JSON labelled text/plain: parse by shape, not by label.
    const looksJson =
      /^\s*[[{]/.test(text) || String(response.headers['content-type'] ?? '').includes('json');
    let body: unknown = text;
    if (looksJson && text !== '') body = JSON.parse(text);
    if (status >= 400) throw new KubeApiError(status, request.method, request.path, body);
    return { status, body };
  }

  /**
   * One request answered as it came, for the service proxy: any status (none is thrown), the
   * headers, and the body's bytes up to `maxBytes` (the rest left unread: `truncated`). Never
   * retried: a proxied request may not be safe to send twice.
   */
  async exchange(request: KubeRequest, maxBytes: number): Promise<KubeExchange> {
    const response = await this.#send(request);
    this.#deps.onResponse?.(request.verb, response.statusCode);
    let read: BoundedBody;
    try {
      read = await readBounded(response.body, maxBytes);
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return { status: response.statusCode, headers, body: read.bytes, truncated: read.truncated };
  }

  /**
   * A watch's events, until the server ends the watch or `signal` aborts (watch-stream.ts). The
   * request is sent at the first `next`.
   */
  watch(path: string, query: KubeRequest['query'], signal: AbortSignal): WatchStream {
    return new WatchStream(() => this.#openWatch(path, query, signal), this.server, signal);
  }

  /** Sends a watch request: the body of a successful answer; an error status is thrown, with its body. */
  async #openWatch(path: string, query: KubeRequest['query'], signal: AbortSignal): Promise<Readable> {
    const response = await this.#send({
      verb: 'watch',
      method: 'GET',
      path,
      query: { ...query, watch: true },
      signal,
    });
    this.#deps.onResponse?.('watch', response.statusCode);
    if (response.statusCode >= 400) {
      const text = await response.body.text();
      throw new KubeApiError(
        response.statusCode,
        'GET',
        path,
        text.startsWith('{') ? JSON.parse(text) : text,
      );
    }
    return response.body;
  }
}
