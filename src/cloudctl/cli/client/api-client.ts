// cloudctl's HTTP API as the client commands call it: the bearer token on every request, answers
// checked against the fields the command reads, and every failure turned into a CliError that names
// its cause (cannot reach the server, 401, 403, 404, another status). The token is never part of a
// message.
import type { z } from 'zod';
import { isRecord } from '../../../lib/is-record.ts';
import { CliError } from './cli-error.ts';
import type { Connection } from './connection.ts';

export type Query = Record<string, string | readonly string[] | undefined>;

export interface Answer {
  status: number;
  json: unknown;
  text: string;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) params.append(key, one);
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** What the server said: the error body's message, else the start of the text. */
export function serverMessage(answer: Answer): string {
  return isRecord(answer.json) && typeof answer.json.message === 'string'
    ? answer.json.message
    : answer.text.slice(0, 300);
}

/** The cause of a fetch that got no answer, as Node words it (ECONNREFUSED, ENOTFOUND, ...). */
export function unreachable(server: string, error: unknown): CliError {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new CliError('UNREACHABLE', `cannot reach ${server}: ${reason}`, { cause: error });
}

export class ApiClient {
  readonly connection: Connection;
  readonly #fetch: typeof fetch;

  constructor(connection: Connection, fetchImpl: typeof fetch = fetch) {
    this.connection = connection;
    this.#fetch = fetchImpl;
  }

  get server(): string {
    return this.connection.server;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const { token } = this.connection;
    return { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...extra };
  }

  /** Sends a request; the answer whatever its status. Throws only when nothing answered. */
  async send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.server}${path}`, {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      throw unreachable(this.server, error);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text };
  }

  /** GET, 200 only, the answer parsed by `schema`. */
  async get<S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<z.infer<S>> {
    const target = withQuery(path, query);
    const answer = await this.send('GET', target);
    if (answer.status !== 200) throw this.failure('GET', target, answer);
    return this.parsed('GET', target, schema, answer.json);
  }

  /** An answer's body parsed by `schema`; a REQUEST_FAILED naming the first mismatch otherwise. */
  parsed<S extends z.ZodType>(method: string, target: string, schema: S, json: unknown): z.infer<S> {
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new CliError(
        'REQUEST_FAILED',
        `${method} ${this.server}${target} answered what cloudctl's API does not: ${parsed.error.issues[0]?.message ?? ''} at ${parsed.error.issues[0]?.path.join('.') ?? ''}`,
      );
    return parsed.data;
  }

  /** The error for an answer that is not what was asked for, named by its status. */
  failure(method: string, path: string, answer: Answer): CliError {
    const message = serverMessage(answer);
    const where = `${this.server}${path.split('?')[0]}`;
    switch (answer.status) {
      case 401:
        return new CliError(
          'UNAUTHORIZED',
          this.connection.token === undefined
            ? `${this.server} needs a token (401): sign in with 'cloudctl login ${this.server}' or set CLOUDCTL_TOKEN`
            : `${this.server} refused the token (401): ${message}; sign in again with 'cloudctl login ${this.server}' or set CLOUDCTL_TOKEN`,
        );
      case 403:
        return new CliError('FORBIDDEN', `forbidden (403): ${message}`);
      case 404:
        return new CliError('NOT_FOUND', `not found (404): ${message} (${method} ${where})`);
      default:
        return new CliError('REQUEST_FAILED', `${method} ${where} failed (${answer.status}): ${message}`);
    }
  }
}
