// The Swagger 2.0 document of the HTTP API, generated from the routes' zod schemas by
// @fastify/swagger and served at the path the UI and tools of the API we mirror expect. Every error
// answer refers to the one error body, `#/definitions/Error`.
import { STATUS_CODES } from 'node:http';
import type { SwaggerOptions } from '@fastify/swagger';
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import { isZodSchema } from './route.ts';
import { type JsonSchema, SWAGGER_TYPE, swaggerParameter, swaggerSchema } from './swagger-schema.ts';

export const API_DOCS_PATH = '/v2/api-docs';

const ERROR_REF = '#/definitions/Error';

const errorBodyShape = z
  .object({
    timestamp: z.string().describe('when the error was answered, ISO 8601'),
    status: z.int().describe('the HTTP status'),
    error: z.string().describe("the status's reason phrase"),
    code: z.string().describe('what went wrong, as a searchable code (REQUEST_INVALID, FORBIDDEN, ...)'),
    message: z.string().describe('what went wrong, for people; names the parameter of a bad request'),
    path: z.string().describe('the request path'),
  })
  .meta({ title: 'Error' });

/**
 * The body of every 4xx and 5xx answer. A route that answers an error status of its own declares it
 * by its code (`...errorAnswers('CONFLICT')`, error-answers.ts), or with this schema and its own
 * words (`404: errorBodySchema.describe('why')`); the document refers to the definition.
 */
export const errorBodySchema = errorBodyShape.meta({ [SWAGGER_TYPE]: { $ref: ERROR_REF } });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: a parameter or the body is invalid (the message names it)',
  401: 'Unauthorized: no bearer token, or an unknown one',
  403: 'Forbidden: the user lacks the permission',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large: the body is over the limit',
  415: 'Unsupported media type: the body is not application/json',
  502: 'The agent could not carry out the request',
  503: 'No connected agent serves the account',
};

function asSchema(value: unknown, io: 'input' | 'output'): JsonSchema | undefined {
  if (isZodSchema(value)) return swaggerSchema(value, io);
  return isRecord(value) ? value : undefined;
}

/** Query, path and header schemas: each property becomes a parameter Swagger 2.0 can describe. */
function asParameters(value: unknown, location: 'query' | 'path' | 'header'): JsonSchema | undefined {
  const schema = asSchema(value, 'input');
  if (schema === undefined || !isRecord(schema.properties)) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [
      name,
      swaggerParameter(isRecord(property) ? property : {}, location),
    ]),
  );
  return { ...schema, properties };
}

/**
 * Marks, for `requireBodies` below, a body schema that takes an absent body: @fastify/swagger writes
 * the body parameter without `required`, which in Swagger 2.0 means a request may leave it out.
 */
const BODY_OPTIONAL = 'x-body-optional';

/** fastify hands a route's validator null when the request has no body. */
function isBodyOptional(body: unknown): boolean {
  return isZodSchema(body) && body.safeParse(null).success && body.safeParse(undefined).success;
}

/** Every body parameter says whether it is required, as the route's body schema has it. */
function requireBodies<T extends { paths?: unknown }>(document: T): T {
  const paths = isRecord(document.paths) ? document.paths : {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(isRecord(operations) ? operations : {})) {
      const parameters =
        isRecord(operation) && Array.isArray(operation.parameters) ? operation.parameters : [];
      for (const parameter of parameters) {
        if (!isRecord(parameter) || parameter.in !== 'body' || !isRecord(parameter.schema)) continue;
        const { [BODY_OPTIONAL]: optional, ...schema } = parameter.schema;
        parameter.schema = schema;
        parameter.required = optional !== true;
      }
    }
  }
  return document;
}

/** `z.void()` and `z.undefined()`: the route answers without a body. */
function isNoBody(value: unknown): boolean {
  return value instanceof z.ZodVoid || value instanceof z.ZodUndefined;
}

/** Statuses whose answer has no body, whatever the route's schema says. */
const BODILESS = new Set([204, 205, 304]);

/** A response as @fastify/swagger takes it: the schema, its description beside it. */
function responseOf(schema: JsonSchema, status: number, bodiless = false): JsonSchema {
  if (bodiless || BODILESS.has(status)) {
    // @fastify/swagger writes no schema for `type: 'null'`: the answer has no body to describe.
    const description = typeof schema.description === 'string' ? schema.description : STATUS_CODES[status];
    return { type: 'null', 'x-response-description': description ?? 'No content' };
  }
  if (schema.$ref === ERROR_REF) {
    const description =
      typeof schema.description === 'string'
        ? schema.description
        : (ERROR_DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'Error');
    return { 'x-response-description': description, $ref: ERROR_REF };
  }
  const description = typeof schema.description === 'string' ? schema.description : 'OK';
  return { ...schema, 'x-response-description': description };
}

/** Turns one route's zod schemas into the JSON schemas @fastify/swagger writes into the document. */
function transformRoute(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  const parts = [
    ['params', 'path'],
    ['querystring', 'query'],
    ['headers', 'header'],
  ] as const;
  for (const [part, location] of parts) {
    const converted = asParameters(schema[part], location);
    if (converted !== undefined) out[part] = converted;
  }
  const body = asSchema(schema.body, 'input');
  if (body !== undefined) out.body = isBodyOptional(schema.body) ? { ...body, [BODY_OPTIONAL]: true } : body;
  const response: Record<string, unknown> = {};
  const declared = isRecord(schema.response) ? schema.response : {};
  for (const [status, value] of Object.entries(declared)) {
    response[status] = responseOf(asSchema(value, 'output') ?? {}, Number(status), isNoBody(value));
  }
  const secured = Array.isArray(schema.security) && schema.security.length > 0;
  // What any route can answer: a bad request, an unknown name; a user's route, no or a weak token;
  // a route with a body, one over the limit (oversized-body.ts) or not JSON. Others are the route's.
  const errors = [400, 404, ...(secured ? [401, 403] : []), ...(body === undefined ? [] : [413, 415])];
  for (const status of errors) response[String(status)] ??= responseOf({ $ref: ERROR_REF }, status);
  out.response = response;
  return out;
}

export function swaggerOptions(version: string): SwaggerOptions {
  return {
    swagger: {
      info: { title: 'cloudctl', description: 'cloudctl: cloud read and write operations', version },
      basePath: '/',
      consumes: ['application/json'],
      produces: ['application/json'],
      securityDefinitions: {
        bearer: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Authorization: Bearer <token>',
        },
      },
      definitions: { Error: swaggerSchema(errorBodyShape, 'output') },
    },
    transformObject: (document) =>
      'swaggerObject' in document ? requireBodies(document.swaggerObject) : document.openapiObject,
    transform: ({ schema, url }) => ({
      schema: isRecord(schema) ? (transformRoute(schema) as typeof schema) : schema,
      url,
    }),
  };
}
