// One HTTP route as data: method, path, who may call it, zod schemas for what it takes and answers,
// and the handler. A feature exports its routes; the server mounts them and the Swagger document is
// generated from the same schemas, so what is documented is what is validated.
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Principal } from '../auth/index.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSchema {
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /**
   * The success answers by status, and the error answers this route can give beyond those every route
   * documents (swagger-document.ts): `...errorAnswers('AGENT_UNAVAILABLE')` for each code it can throw
   * or let through. Tests hold every answer's status to the document (test/cloudctl/http-client.ts).
   */
  response: Record<number, z.ZodType>;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteRequest<S extends RouteSchema> {
  params: Parsed<S['params']>;
  query: Parsed<S['querystring']>;
  body: Parsed<S['body']>;
  /** The authenticated user; on public routes, the anonymous user. */
  user: Principal;
  /** The request path, without the query. */
  path: string;
  /** The request's headers (a page compares Origin with Host before it acts on a form). */
  headers: IncomingHttpHeaders;
  /** Whether the request came over TLS to this server (a cookie set for it is then Secure). */
  secure: boolean;
  /** The query string as received, without its `?` (empty when none). */
  search: string;
  /** On a `rawBody` route, the body's bytes (undefined when none came). */
  rawBody: Buffer | undefined;
}

/** A handler's answer with a status other than the route's first success status, or not JSON. */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  /** Set for a body that is sent as it is (a string), not as JSON. */
  readonly contentType: string | undefined;
  /** Extra response headers (`cache-control: no-store` on a token answer, say). */
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, body: unknown, contentType?: string, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.contentType = contentType;
    this.headers = headers;
  }
}

export interface RouteDefinition<S extends RouteSchema> {
  method: HttpMethod;
  /** fastify syntax: `/credentials/:accountName`. */
  url: string;
  summary: string;
  /** Swagger tag (the controller, in the API we mirror). */
  tag: string;
  deprecated?: boolean;
  /** Media types of the success answer, where it is not JSON. */
  produces?: string[];
  /** `public`: no token needed (probes, the API document); `user`: an authenticated user. */
  access: 'public' | 'user';
  /**
   * Media types of the body, where not JSON alone. `application/x-www-form-urlencoded` is parsed
   * into an object of strings for the routes that list it and refused with 415 by the others.
   */
  consumes?: string[];
  /**
   * Takes any body, of any media type, as its bytes (`rawBody`) instead of parsing it: a proxy's
   * route, which passes the body on as it came.
   */
  rawBody?: boolean;
  /**
   * The body of this route's refusals (400 for a bad request, 415, ...), where a protocol fixes it
   * (OAuth's token endpoint) or people read it (the status page's HTML; a Reply sets the media type
   * and headers); other routes answer the one error body.
   */
  errorBody?: (status: number, message: string, path: string) => unknown;
  /** Left out of the API document: pages for browsers, not part of the API. */
  hidden?: boolean;
  /**
   * Where a `user` route finds its credential, as an Authorization header value; by default the
   * header itself. The status page also takes its session cookie.
   */
  authorization?: (headers: IncomingHttpHeaders) => string | undefined;
  schema: S;
  handler(request: RouteRequest<S>): Promise<unknown>;
}

/** A route with its types erased, to be listed beside others. */
export interface Route {
  method: HttpMethod;
  url: string;
  summary: string;
  tag: string;
  deprecated?: boolean;
  produces?: string[];
  access: 'public' | 'user';
  consumes?: string[];
  rawBody?: boolean;
  errorBody?: (status: number, message: string, path: string) => unknown;
  hidden?: boolean;
  authorization?: (headers: IncomingHttpHeaders) => string | undefined;
  schema: RouteSchema;
  handler(request: RouteRequest<RouteSchema>): Promise<unknown>;
}

/** Whether a route's schema slot holds a zod schema (fastify's own schema slots may hold others). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && 'safeParse' in value;
}

export function defineRoute<S extends RouteSchema>(definition: RouteDefinition<S>): Route {
  // The server hands the handler exactly what the schemas parsed, so the erased types agree.
  return definition as unknown as Route;
}
