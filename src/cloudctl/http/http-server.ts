// cloudctl's HTTP API: fastify in the same process as the gRPC endpoint, mounting the routes the
// features give it. It owns what every route shares: zod validation with 400s that name the
// parameter, bearer authentication, one error body, one log line per request (never a token),
// the Swagger 2.0 document at /v2/api-docs (pages for browsers kept out of it), and a shutdown that
// lets in-flight requests finish.
import { readFile } from 'node:fs/promises';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { Principal, UserAuthenticator } from '../auth/index.ts';
import type { CloudctlConfig } from '../config/index.ts';
import { CloudctlError } from '../errors.ts';
import { errorBody, HttpError } from './http-error.ts';
import type { HttpMetrics } from './http-metrics.ts';
import { refuseOtherMethods } from './method-not-allowed.ts';
import { BODY_LIMIT_BYTES, refuseOversizedBodies } from './oversized-body.ts';
import { ValidationFailure, zodValidator } from './request-validation.ts';
import { Reply, type Route } from './route.ts';
import { API_DOCS_PATH, swaggerOptions } from './swagger-document.ts';

const FORM = 'application/x-www-form-urlencoded';

/** Longer than any request line Node accepts (16 KiB of headers), so never the limit that bites. */
const MAX_PARAM_LENGTH = 16 * 1024;

export interface HttpServerDeps {
  routes: readonly Route[];
  authenticator: UserAuthenticator;
  logger: Logger;
  metrics: HttpMetrics;
  now: () => Date;
  version: string;
}

export interface HttpEndpoint {
  port: number;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

async function tlsOptions(tls: CloudctlConfig['http']['tls']) {
  if (tls === undefined) return undefined;
  const read = async (setting: string, file: string) => {
    try {
      return await readFile(file);
    } catch (error) {
      throw new CloudctlError('CONFIG_INVALID', `http.tls.${setting}: cannot read ${file}: ${String(error)}`);
    }
  };
  return { cert: await read('certFile', tls.certFile), key: await read('keyFile', tls.keyFile) };
}

type RouteFor = (request: FastifyRequest) => Route | undefined;
/** Answers a request with an error in the one error body (or the route's own, below 500). */
type Fail = (
  reply: FastifyReply,
  request: FastifyRequest,
  status: number,
  code: string,
  message: string,
) => void;

/** The app; a certificate or key that TLS cannot use is the setting's error, not a crash. */
function createApp(https: Awaited<ReturnType<typeof tlsOptions>>): FastifyInstance {
  try {
    return fastifyApp(https);
  } catch (error) {
    if (https === undefined) throw error;
    throw new CloudctlError(
      'CONFIG_INVALID',
      `http.tls: certFile and keyFile are not a certificate and its key: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function fastifyApp(https: Awaited<ReturnType<typeof tlsOptions>>): FastifyInstance {
  const app = Fastify({
    ...(https === undefined ? {} : { https }),
    // No fastify logger: our own line per request (below) replaces its two, which would log headers.
    // Idle keep-alive connections are closed at shutdown; busy ones finish their request first.
    forceCloseConnections: 'idle',
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    // find-my-way answers 414 to a path parameter over 100 characters (percent-encoded), which no
    // route documents: a long name is the route's to judge (404 for an unknown one). Node's 16 KiB
    // header limit still bounds the request line.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  app.setValidatorCompiler(zodValidator);
  // Responses are written as JSON as they are: the schemas document them, the handlers build them.
  app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
  // Bodies are JSON (the document's `consumes`): fastify would also hand a text/plain body to the
  // route as a string, which its schema then refuses as a 400; it is a 415.
  app.removeContentTypeParser('text/plain');
  return app;
}

/**
 * Form bodies only for the routes that say they take them (OAuth's token endpoint): to any other
 * route a form is an unsupported media type, as before. A repeated field becomes a list, which the
 * route's schema refuses (RFC 6749 forbids repeated parameters).
 */
function acceptForms(app: FastifyInstance, routeFor: RouteFor): void {
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (request, body, done) => {
    if (!(routeFor(request)?.consumes ?? []).includes(FORM)) {
      done(Object.assign(new Error(`${FORM} is not taken here; send application/json`), { statusCode: 415 }));
      return;
    }
    const fields: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(String(body))) {
      const seen = fields[key];
      fields[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    done(null, fields);
  });
}

function errorReplies(routeFor: RouteFor, now: () => Date): Fail {
  return (reply, request, status, code, message) => {
    const own = status < 500 ? routeFor(request)?.errorBody : undefined;
    const body =
      own === undefined
        ? errorBody(status, code, message, request.url, now())
        : own(status, message, request.url.split('?')[0] ?? request.url);
    if (body instanceof Reply) {
      reply.headers(body.headers);
      reply
        .code(status)
        .type(body.contentType ?? 'application/json')
        .send(body.body);
      return;
    }
    reply.code(status).type('application/json').send(body);
  };
}

/** Every error a route throws, and every request no route takes, answered in the one error body. */
function handleErrors(app: FastifyInstance, fail: Fail, log: Logger): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ValidationFailure || error.validation !== undefined) {
      return fail(reply, request, 400, 'REQUEST_INVALID', error.message);
    }
    if (error instanceof HttpError) {
      if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="cloudctl"');
      return fail(reply, request, error.status, error.code, error.message);
    }
    if (error instanceof CloudctlError && error.code === 'AGENT_NOT_CONNECTED') {
      return fail(reply, request, 503, 'AGENT_UNAVAILABLE', error.message);
    }
    // fastify's own client errors: malformed JSON, wrong content type, body too large.
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const code =
        status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : status === 400
            ? 'REQUEST_INVALID'
            : (error.code ?? 'REQUEST_INVALID');
      return fail(reply, request, status, code, error.message);
    }
    log.error({ err: error, method: request.method, route: request.routeOptions.url }, 'request failed');
    return fail(
      reply,
      request,
      500,
      'INTERNAL',
      'cloudctl could not answer this request; its log has the cause',
    );
  });
  app.setNotFoundHandler((request, reply) =>
    fail(reply, request, 404, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
  );
}

/** One log line and one metric per request; `closing` says whether the server is shutting down. */
function logRequests(app: FastifyInstance, metrics: HttpMetrics, log: Logger, closing: () => boolean): void {
  // A keep-alive connection would hold the closing server open until the client let go of it: the
  // answers given while closing tell the client to close it.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing()) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    log.info(
      { method: request.method, route, status: reply.statusCode, durationMs, user: request.principal?.name },
      'request',
    );
  });
}

/** The route's schema as fastify validates it and the Swagger document shows it. */
function fastifySchema(route: Route) {
  return {
    ...(route.schema.params === undefined ? {} : { params: route.schema.params }),
    ...(route.schema.querystring === undefined ? {} : { querystring: route.schema.querystring }),
    ...(route.schema.body === undefined ? {} : { body: route.schema.body }),
    response: route.schema.response,
    summary: route.summary,
    tags: [route.tag],
    ...(route.hidden ? { hide: true } : {}),
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(route.produces === undefined ? {} : { produces: route.produces }),
    ...(route.consumes === undefined ? {} : { consumes: route.consumes }),
    ...(route.access === 'user' ? { security: [{ bearer: [] }] } : {}),
  };
}

/**
 * The routes that take any body as its bytes (a proxy's), in a context of their own whose one parser
 * hands every media type over unparsed; the other routes keep JSON and forms.
 */
async function mountRawRoutes(
  app: FastifyInstance,
  routes: readonly Route[],
  authenticator: UserAuthenticator,
  routeFor: RouteFor,
): Promise<void> {
  const raw = routes.filter((route) => route.rawBody === true);
  if (raw.length === 0) return;
  await app.register(async (context) => {
    context.removeAllContentTypeParsers();
    context.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    mountRoutes(context, raw, authenticator, routeFor);
  });
}

function mountRoutes(
  app: FastifyInstance,
  routes: readonly Route[],
  authenticator: UserAuthenticator,
  routeFor: RouteFor,
): void {
  const authenticate = async (request: FastifyRequest) => {
    const credential = routeFor(request)?.authorization;
    const outcome = await authenticator.authenticate(
      credential === undefined ? request.headers.authorization : credential(request.headers),
    );
    if (!outcome.ok) throw new HttpError('UNAUTHENTICATED', outcome.reason);
    request.principal = outcome.principal;
  };
  const anonymous = authenticator.principal('anonymous', [], true);
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      schema: fastifySchema(route),
      // Authentication comes before validation: a caller without a token learns nothing of the route.
      ...(route.access === 'user' ? { onRequest: authenticate } : {}),
      handler: async (request, reply) => {
        const answer = await route.handler({
          params: request.params,
          query: request.query,
          body: request.body,
          user: request.principal ?? anonymous,
          path: request.url.split('?')[0] ?? request.url,
          headers: request.headers,
          secure: request.protocol === 'https',
          search: request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '',
          rawBody: Buffer.isBuffer(request.body) ? request.body : undefined,
        });
        if (answer instanceof Reply) {
          if (answer.contentType !== undefined) reply.type(answer.contentType);
          reply.headers(answer.headers);
          return reply.code(answer.status).send(answer.body);
        }
        const [status] = Object.keys(route.schema.response).map(Number);
        return reply.code(status ?? 200).send(answer ?? null);
      },
    });
  }
}

/** The port it took (the configured one may be 0); a port it cannot take closes the app. */
async function listen(app: FastifyInstance, settings: CloudctlConfig['http']): Promise<number> {
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await app.close();
    throw new CloudctlError('LISTEN_FAILED', `HTTP ${settings.host}:${settings.port}: ${String(error)}`, {
      cause: error,
    });
  }
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : settings.port;
}

export async function startHttpEndpoint(
  settings: CloudctlConfig['http'],
  deps: HttpServerDeps,
): Promise<HttpEndpoint> {
  const log = deps.logger.child({ component: 'http' });
  const https = await tlsOptions(settings.tls);
  const app = createApp(https);
  const routeOf = new Map(deps.routes.map((route) => [`${route.method} ${route.url}`, route]));
  const routeFor: RouteFor = (request) => routeOf.get(`${request.method} ${request.routeOptions.url ?? ''}`);
  acceptForms(app, routeFor);
  const fail = errorReplies(routeFor, deps.now);
  handleErrors(app, fail, log);
  refuseOversizedBodies(app, fail);
  let closing = false;
  logRequests(app, deps.metrics, log, () => closing);
  await app.register(swagger, swaggerOptions(deps.version));
  mountRoutes(
    app,
    deps.routes.filter((route) => route.rawBody !== true),
    deps.authenticator,
    routeFor,
  );
  await mountRawRoutes(app, deps.routes, deps.authenticator, routeFor);
  app.get(API_DOCS_PATH, { schema: { hide: true } }, async () => app.swagger());
  refuseOtherMethods(
    app,
    [...deps.routes, { method: 'GET', url: API_DOCS_PATH }],
    (request, reply, allow) => {
      reply.header('allow', allow.join(', '));
      fail(
        reply,
        request,
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed here; use ${allow.join(' or ')}`,
      );
    },
  );
  const port = await listen(app, settings);
  log.info({ host: settings.host, port, tls: https !== undefined }, 'HTTP API listening');
  return {
    port,
    close: async () => {
      closing = true;
      // In-flight requests finish; a request still running at the deadline is cut off.
      const deadline = setTimeout(() => app.server.closeAllConnections(), settings.shutdownTimeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
