// A minimal HTTPS client for one API server: the harness uses it for readiness, nodes and tokens, and
// tests use it to speak to the server without a client library in between (raw bodies, any content
// type, the watch stream as the server sends it). It trusts only the cluster's CA.
import { Agent, request } from 'undici';

export interface ApiClientOptions {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM bundle the server's certificate must chain to. */
  readonly ca: string;
  /** Bearer token; none means an anonymous request. */
  readonly token?: string;
}

export interface RequestOptions {
  /** A string is sent as is (YAML, a patch); anything else as JSON. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

export interface ApiResponse {
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface WatchEvent {
  readonly type: string;
  readonly object: unknown;
}

export class ApiClient {
  readonly server: string;
  readonly #ca: string;
  readonly #token: string | undefined;
  readonly #agent: Agent;

  constructor(options: ApiClientOptions) {
    this.server = options.server;
    this.#ca = options.ca;
    this.#token = options.token;
    this.#agent = new Agent({ connect: { ca: options.ca } });
  }

  /** The same server and CA with another credential (undefined: anonymous). Close it when done. */
  withToken(token: string | undefined): ApiClient {
    return new ApiClient({ server: this.server, ca: this.#ca, token });
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const { body, contentType } = options;
    const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
    const response = await request(new URL(path, this.server), {
      method,
      dispatcher: this.#agent,
      headers: this.#headers(payload === undefined ? undefined : (contentType ?? 'application/json')),
      body: payload,
      signal: options.signal,
    });
    const text = await response.body.text();
    return { status: response.statusCode, text, json: parseJson(text) };
  }

  get(path: string): Promise<ApiResponse> {
    return this.request('GET', path);
  }

  /**
   * Opens `path` (which should carry `watch=1`) and yields each event as the server sends it. The
   * iteration ends when the server closes the stream or `signal` aborts. A non-200 answer (such as
   * 410 Gone for a compacted resourceVersion) is thrown as a `WatchRefusedError`.
   */
  async *watch(path: string, signal?: AbortSignal): AsyncGenerator<WatchEvent> {
    const response = await request(new URL(path, this.server), {
      method: 'GET',
      dispatcher: this.#agent,
      headers: this.#headers(undefined),
      signal,
    });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      throw new WatchRefusedError(response.statusCode, text);
    }
    let buffered = '';
    try {
      for await (const chunk of response.body) {
        buffered += chunk.toString();
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== '') yield toWatchEvent(line);
          newline = buffered.indexOf('\n');
        }
      }
    } catch (error) {
      if (!(signal?.aborted ?? false)) throw error;
    } finally {
      response.body.destroy();
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #headers(contentType: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    if (contentType !== undefined) headers['content-type'] = contentType;
    return headers;
  }
}

/** A watch the server answered with an error status instead of a stream. */
export class WatchRefusedError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string) {
    super(`watch refused with HTTP ${status}: ${body}`);
    this.name = 'WatchRefusedError';
    this.status = status;
    this.body = body;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toWatchEvent(line: string): WatchEvent {
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed === 'object' && parsed !== null && 'type' in parsed && typeof parsed.type === 'string') {
    return { type: parsed.type, object: 'object' in parsed ? parsed.object : undefined };
  }
  throw new Error(`not a watch event: ${line.slice(0, 200)}`);
}
