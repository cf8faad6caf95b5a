// The Swagger 2.0 document at /v2/api-docs, as a real control plane serves it, checked by a real
// Swagger 2.0 validator (@apidevtools/swagger-parser): clients and schemathesis (fuzz.test.ts) are
// generated from it, so a document that does not validate breaks them all. The second part feeds the
// generator the zod features Swagger 2.0 has no words for, so a route written with them tomorrow
// still gives a valid document.
import SwaggerParser from '@apidevtools/swagger-parser';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configUsers, UserAuthenticator } from '../../../src/cloudctl/auth/index.ts';
import {
  API_DOCS_PATH,
  defineRoute,
  errorBodySchema,
  type HttpEndpoint,
  queryBoolean,
  queryInteger,
  Reply,
  startHttpEndpoint,
} from '../../../src/cloudctl/http/index.ts';
import { hashToken, parseConfig } from '../../../src/cloudctl/index.ts';
import { startTestControlPlane, type TestControlPlane } from '../harness.ts';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const ERROR_REF = { $ref: '#/definitions/Error' };
const OAUTH_TOKEN = 'POST /oauth/token';

/** The title of a response's schema, where it has one. */
function schemaTitle(response: unknown): unknown {
  const schema = (response as { schema?: { title?: unknown } } | undefined)?.schema;
  return schema?.title;
}

type SwaggerInput = Parameters<typeof SwaggerParser.validate>[0];

/** Fails with the validator's own words when the document is not valid Swagger 2.0. */
async function expectValidSwagger(document: unknown): Promise<void> {
  try {
    // validate() dereferences what it is given; the test goes on reading the document as served.
    await SwaggerParser.validate(structuredClone(document) as SwaggerInput);
  } catch (error) {
    expect.fail(
      `${API_DOCS_PATH} is not valid Swagger 2.0: ${error instanceof Error ? error.message : error}`,
    );
  }
}

interface Operation {
  method: string;
  path: string;
  definition: Json;
}

function operations(document: Json): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, definition] of Object.entries(item)) {
      if (METHODS.includes(method)) found.push({ method, path, definition: definition as Json });
    }
  }
  return found;
}

const label = (op: Operation) => `${op.method.toUpperCase()} ${op.path}`;

function parameter(op: Operation, name: string): Json | undefined {
  const parameters = (op.definition.parameters ?? []) as Json[];
  return parameters.find((p) => p.name === name);
}

function operation(document: Json, method: string, path: string): Operation {
  const found = operations(document).find((op) => op.method === method && op.path === path);
  if (found === undefined) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return found;
}

describe(`the control plane's ${API_DOCS_PATH}`, () => {
  let cp: TestControlPlane;
  let document: Json;
  let served: Response;

  beforeAll(async () => {
    cp = await startTestControlPlane();
    served = await fetch(`${cp.url}${API_DOCS_PATH}`);
    document = (await served.json()) as Json;
  });

  afterAll(async () => {
    await cp?.close();
  });

  it('is served without a token, titled cloudctl, and is valid Swagger 2.0', async () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document).toMatchObject({ swagger: '2.0', info: { title: 'cloudctl' } });
    expect(operations(document).length).toBeGreaterThan(5);
    await expectValidSwagger(document);
  });

  it('marks POST /ops, POST /ops/{name} and the /oauth/clients routes (replaced by /clients) deprecated, and no other operation', () => {
    const deprecated = operations(document)
      .filter((op) => op.definition.deprecated === true)
      .map(label);
    expect(deprecated.sort()).toEqual([
      'DELETE /oauth/clients/{clientId}',
      'GET /oauth/clients',
      'POST /oauth/clients',
      'POST /ops',
      'POST /ops/{name}',
    ]);
  });

  it('declares bearer security and 401 and 403 on exactly the operations that refuse a request without a token', async () => {
    expect(document.securityDefinitions).toEqual({
      bearer: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
    });
    const secured: string[] = [];
    for (const op of operations(document)) {
      // Authentication comes before validation, so any path parameter value will do.
      const path = op.path.replace(/\{[^}]+\}/g, 'x');
      const post = op.method === 'post' || op.method === 'put' || op.method === 'patch';
      const answer = await fetch(`${cp.url}${path}`, {
        method: op.method.toUpperCase(),
        ...(post ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      await answer.arrayBuffer();
      const responses = op.definition.responses as Json;
      if (answer.status === 401) {
        secured.push(label(op));
        expect(op.definition.security, label(op)).toEqual([{ bearer: [] }]);
        expect(Object.keys(responses), label(op)).toEqual(expect.arrayContaining(['401', '403']));
      } else {
        expect(
          op.definition.security,
          `${label(op)} answered ${answer.status} without a token`,
        ).toBeUndefined();
        // The OAuth token endpoint takes no token; its 401 is RFC 6749's invalid_client (a wrong
        // client secret), documented with the OAuth error body.
        if (label(op) === OAUTH_TOKEN) expect(schemaTitle(responses['401']), label(op)).toBe('OAuthError');
        else expect(responses['401'], label(op)).toBeUndefined();
      }
    }
    expect(secured).toContain('POST /ops');
    expect(secured).toContain('GET /task/{id}');
  });

  it('describes every error answer with the one Error definition, the shape the server sends', async () => {
    for (const op of operations(document)) {
      for (const [status, response] of Object.entries(op.definition.responses as Record<string, Json>)) {
        // The readiness probe's 503 is its DOWN status with the failing checks, not an error.
        if (label(op) === 'GET /ready' && status === '503') continue;
        // The OAuth token endpoint refuses with RFC 6749's body ({error, error_description}), which
        // OAuth clients parse; its own statuses say so, the 404 every route may answer does not.
        if (label(op) === OAUTH_TOKEN && Number(status) >= 400 && status !== '404') {
          expect(schemaTitle(response), `${label(op)} ${status}`).toBe('OAuthError');
          continue;
        }
        if (Number(status) >= 400) expect(response.schema, `${label(op)} ${status}`).toEqual(ERROR_REF);
      }
    }
    const fields = ['timestamp', 'status', 'error', 'code', 'message', 'path'];
    expect((document.definitions as Record<string, Json>).Error?.required).toEqual(fields);
    const refused = await fetch(`${cp.url}/task/x`);
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as Json;
    expect(Object.keys(body).sort()).toEqual([...fields].sort());
  });
});

/** A small API using what Swagger 2.0 cannot say directly. */
function featureRoutes() {
  interface Tree {
    name: string;
    children?: Tree[];
  }
  const tree: z.ZodType<Tree> = z.object({
    name: z.string(),
    get children() {
      return z.array(tree).optional();
    },
  });
  const owner = z.object({ name: z.string() }).meta({ id: 'FeatureOwner' });
  const feature = z.object({
    id: z.string(),
    value: z.union([z.string(), z.number()]),
    note: z.string().nullable(),
    nothing: z.null(),
    kind: z.literal('feature'),
    weight: z.number().gt(0).multipleOf(0.5),
    labels: z.record(z.string(), z.string()),
    owner,
    coOwner: owner.optional(),
    tree,
    pair: z.tuple([z.string(), z.int()]),
    changed: z.date(),
    // Metadata named like a schema keyword: config settings document their type in words.
    documented: z.unknown().meta({ type: 'map or list', description: 'a setting' }),
  });
  return [
    defineRoute({
      method: 'GET',
      url: '/features/:id',
      summary: 'A feature',
      tag: 'features',
      access: 'user',
      schema: {
        params: z.object({ id: z.string().min(1) }),
        querystring: z.object({
          names: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string())).optional(),
          limit: queryInteger(z.int().min(1).max(50).default(10)),
          deep: queryBoolean(false),
          after: z.coerce.number().optional(),
          since: z.coerce.date().optional(),
          either: z.union([z.literal('x'), z.number()]).optional(),
          kind: z.enum(['a', 'b']).optional(),
        }),
        response: { 200: feature, 409: errorBodySchema.describe('the feature is being changed') },
      },
      handler: async ({ query }) => new Reply(409, { deep: query.deep, limit: query.limit }),
    }),
    defineRoute({
      method: 'PUT',
      url: '/features/:id',
      summary: 'Store a feature',
      tag: 'features',
      access: 'user',
      schema: {
        params: z.object({ id: z.string() }),
        body: z.object({ note: z.string().nullable(), weight: z.number().gt(0) }),
        response: { 204: z.void().describe('Stored') },
      },
      handler: async () => new Reply(204, null),
    }),
    defineRoute({
      method: 'POST',
      url: '/features',
      summary: 'Make a feature, from a template or from nothing',
      tag: 'features',
      access: 'public',
      schema: {
        body: z.object({ template: z.string() }).nullish(),
        response: { 201: z.object({ id: z.string() }) },
      },
      handler: async () => new Reply(201, { id: 'f-1' }),
    }),
  ];
}

describe('the Swagger 2.0 generator, fed what Swagger 2.0 has no words for', () => {
  const token = 'token-of-swagger-test-5e1d';
  let endpoint: HttpEndpoint;
  let url: string;
  let document: Json;

  beforeAll(async () => {
    const config = parseConfig(
      {
        http: { host: '127.0.0.1', port: 0 },
        users: [{ name: 'root', tokenHash: hashToken(token), roles: ['admins'] }],
        auth: { adminRoles: ['admins'] },
      },
      'swagger test config',
      process.cwd(),
    );
    endpoint = await startHttpEndpoint(config.http, {
      routes: featureRoutes(),
      authenticator: new UserAuthenticator([configUsers(config.users)], config.auth),
      logger: pino({ level: 'silent' }),
      metrics: { observe: () => undefined },
      now: () => new Date(),
      version: '0.0.0-test',
    });
    url = `http://127.0.0.1:${endpoint.port}`;
    document = (await (await fetch(`${url}${API_DOCS_PATH}`)).json()) as Json;
  });

  afterAll(async () => {
    await endpoint?.close();
  });

  it('writes a valid Swagger 2.0 document', async () => {
    await expectValidSwagger(document);
  });

  it('gives every query parameter a primitive type, repeats arrays, and keeps defaults and bounds', () => {
    const get = operation(document, 'get', '/features/{id}');
    expect(parameter(get, 'id')).toMatchObject({ in: 'path', required: true, type: 'string', minLength: 1 });
    expect(parameter(get, 'names')).toEqual({
      in: 'query',
      name: 'names',
      required: false,
      type: 'array',
      items: { type: 'string' },
      collectionFormat: 'multi',
    });
    expect(parameter(get, 'limit')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 50,
      default: 10,
      required: false,
    });
    expect(parameter(get, 'deep')).toMatchObject({ type: 'boolean', default: false, required: false });
    expect(parameter(get, 'after')).toMatchObject({ type: 'number' });
    expect(parameter(get, 'since')).toMatchObject({ type: 'string' });
    expect(parameter(get, 'either')).toMatchObject({ type: 'string' });
    expect(parameter(get, 'kind')).toMatchObject({ type: 'string', enum: ['a', 'b'] });
  });

  it('requires a body unless the route takes none, and describes a 204 without a schema', () => {
    const put = operation(document, 'put', '/features/{id}');
    expect(parameter(put, 'body')).toMatchObject({ in: 'body', required: true });
    expect((put.definition.responses as Json)['204']).toEqual({ description: 'Stored' });
    const post = operation(document, 'post', '/features');
    expect(parameter(post, 'body')).toMatchObject({ in: 'body', required: false });
  });

  it("refers a route's own error status to the Error definition, with the route's description", () => {
    const get = operation(document, 'get', '/features/{id}');
    expect((get.definition.responses as Json)['409']).toEqual({
      description: 'the feature is being changed',
      schema: ERROR_REF,
    });
  });

  it('parses query integers and flags strictly, as documented', async () => {
    const call = (query: string) =>
      fetch(`${url}/features/f?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const parsed = await call('limit=7&deep=true');
    expect(await parsed.json()).toEqual({ deep: true, limit: 7 });
    for (const [query, parameterName] of [
      ['deep=yes', 'deep'],
      ['deep=1', 'deep'],
      ['limit=', 'limit'],
      ['limit=0x10', 'limit'],
      ['limit=1e1', 'limit'],
    ]) {
      const refused = await call(query ?? '');
      expect(refused.status, query).toBe(400);
      expect(((await refused.json()) as Json).message, query).toContain(`query parameter ${parameterName}:`);
    }
  });
});
