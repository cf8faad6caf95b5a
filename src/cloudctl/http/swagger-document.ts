// The Swagger 2.0 document of the HTTP API, generated from the routes' zod schemas by
// @fastify/swagger and served at the path the UI and tools of the API we mirror expect.
import type { SwaggerOptions } from '@fastify/swagger';
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import { type JsonSchema, swaggerSchema } from './swagger-schema.ts';

export const API_DOCS_PATH = '/v2/api-docs';

export const errorBodySchema = z
  .object({
    timestamp: z.string().describe('when the error was answered, ISO 8601'),
    status: z.int().describe('the HTTP status'),
    error: z.string().describe("the status's reason phrase"),
    code: z.string().describe('what went wrong, as a searchable code (REQUEST_INVALID, FORBIDDEN, ...)'),
    message: z.string().describe('what went wrong, for people; names the parameter of a bad request'),
    path: z.string().describe('the request path'),
  })
  .describe('Error');

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: a parameter or the body is invalid (the message names it)',
  401: 'Unauthorized: no bearer token, or an unknown one',
  403: 'Forbidden: the user lacks the permission',
  404: 'Not found',
  409: 'Conflict',
  503: 'No connected agent serves the account',
};

function asSchema(value: unknown, io: 'input' | 'output'): JsonSchema | undefined {
  if (typeof value === 'object' && value !== null && 'safeParse' in value)
    return swaggerSchema(value as z.ZodType, io);
  return isRecord(value) ? value : undefined;
}

/** Turns one route's zod schemas into the JSON schemas @fastify/swagger writes into the document. */
function transformRoute(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  for (const part of ['params', 'querystring', 'body', 'headers'] as const) {
    const converted = asSchema(schema[part], 'input');
    if (converted !== undefined) out[part] = converted;
  }
  const response: Record<string, unknown> = {};
  const declared = isRecord(schema.response) ? schema.response : {};
  for (const [status, value] of Object.entries(declared)) {
    const converted = asSchema(value, 'output') ?? {};
    response[status] = {
      description: typeof converted.description === 'string' ? converted.description : 'OK',
      ...converted,
    };
  }
  const secured = Array.isArray(schema.security) && schema.security.length > 0;
  const errors = [400, 404, ...(secured ? [401, 403] : [])];
  for (const status of errors) {
    response[String(status)] ??= {
      ...swaggerSchema(errorBodySchema, 'output'),
      description: ERROR_DESCRIPTIONS[status],
    };
  }
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
    },
    transform: ({ schema, url }) => ({
      schema: isRecord(schema) ? (transformRoute(schema) as typeof schema) : schema,
      url,
    }),
  };
}
