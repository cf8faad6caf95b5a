// The cache controller of the API we mirror: on-demand refresh of one object
// (POST /cache/{cloudProvider}/manifest), the requests pending or recently ended (GET on that path)
// and the cache introspection (GET /cache/introspection). Refreshing needs WRITE on the account;
// the lists show only the accounts the user may READ. A refresh of any other type (Orca asks for
// `serverGroup`, `loadBalancer`, ... after its stages) is answered as clouddriver answers a type no
// caching agent handles: 200 with nothing cached, and nothing done.
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import { defineRoute, errorBodySchema, HttpError, Reply, type Route } from '../http/index.ts';
import {
  agentIntrospectionSchema,
  cacheIntrospection,
  type IntrospectionSources,
} from './cache-introspection.ts';
import { manifestNameSchema } from './kind-resolver.ts';
import {
  type OnDemandRefresh,
  type OnDemandResult,
  onDemandRequestSchema,
  onDemandResultSchema,
} from './on-demand-refresh.ts';

export interface CacheRouteDeps {
  guard: AccountGuard;
  refresh: OnDemandRefresh;
  introspection: IntrospectionSources;
}

const PROVIDER = 'orchestrator';
/** Spinnaker's Kubernetes provider refreshes manifests; its type names match case-insensitively. */
const ON_DEMAND_TYPE = 'manifest';

const onDemandPath = z.object({
  cloudProvider: z.string().describe(`the cloud provider; only ${PROVIDER}`),
  type: z.string().describe(`what to refresh; only ${ON_DEMAND_TYPE}`),
});

/** Unknown providers are paths nothing is served at: 404, as for any unknown URL. */
function checkProvider(cloudProvider: string): void {
  if (cloudProvider !== PROVIDER)
    throw new HttpError('NOT_FOUND', `no cloud provider '${cloudProvider}': this API serves '${PROVIDER}'`);
}

/** Only manifest requests are listed: another type is a path nothing is served at, 404. */
function checkPath(params: z.infer<typeof onDemandPath>): void {
  checkProvider(params.cloudProvider);
  if (params.type.toLowerCase() !== ON_DEMAND_TYPE)
    throw new HttpError(
      'NOT_FOUND',
      `no on-demand type '${params.type}': ${PROVIDER} refreshes '${ON_DEMAND_TYPE}'`,
    );
}

/** What a manifest refresh names; checked only for that type. */
const manifestRefresh = z.object({
  account: z.string().min(1),
  location: z.string().default(''),
  name: manifestNameSchema,
});

/**
 * The body as documented: a manifest refresh's fields, required for that type only (clouddriver
 * hands the body of other types to their handlers, and Orca sends theirs: serverGroupName, region).
 */
const refreshRequest = z.looseObject({
  account: z
    .string()
    .nullish()
    .describe(`${ON_DEMAND_TYPE}: required; the account whose cluster holds the object`),
  location: z
    .string()
    .nullish()
    .describe(`${ON_DEMAND_TYPE}: the namespace; empty for cluster-scoped objects`),
  name: z
    .string()
    .nullish()
    .describe(`${ON_DEMAND_TYPE}: required; the object as "<kind> <name>", e.g. "deployment web"`),
});

/** A manifest refresh's fields, or 400 naming the first that is wrong. Null is absent, as from Orca. */
function manifestDetails(body: Record<string, unknown>): z.infer<typeof manifestRefresh> {
  const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
  const parsed = manifestRefresh.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  throw new HttpError(
    'REQUEST_INVALID',
    `body${path === '' ? '' : `.${path}`}: ${issue?.message ?? 'invalid'}`,
  );
}

/**
 * Spinnaker's answer for a type no caching agent handles: 200 with nothing cached. Nothing is read
 * or changed, so nothing about any account is checked or told.
 */
function nothingToRefresh(type: string): OnDemandResult {
  return {
    cachedIdentifiersByType: {},
    state: 'NOT_CACHED',
    message: `${PROVIDER} refreshes only ${ON_DEMAND_TYPE}s: nothing to refresh for type '${type}'`,
    request: null,
  };
}

async function readable(guard: AccountGuard, user: Principal): Promise<Set<string>> {
  return new Set((await guard.visible(user, 'READ')).map((a) => a.name));
}

export function cacheRoutes(deps: CacheRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/cache/:cloudProvider/:type',
      summary:
        'Refresh one object in the cache now: the agent reads it, cloudctl stores or removes it. Any type but manifest has nothing to refresh',
      tag: 'cache-controller',
      access: 'user',
      schema: {
        params: z.object({
          cloudProvider: onDemandPath.shape.cloudProvider,
          type: z
            .string()
            .describe(
              `what to refresh: ${ON_DEMAND_TYPE}, in any case; another type (serverGroup, ...) is answered 200 with nothing cached`,
            ),
        }),
        body: refreshRequest,
        response: {
          200: onDemandResultSchema.describe(
            'Stored, removed (not in the cluster), a kind the account does not cache, or a type with nothing to refresh',
          ),
          202: onDemandResultSchema.describe('Accepted: the agent has not answered yet; the request goes on'),
          502: errorBodySchema.describe('The agent could not read the object'),
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, body, user }) => {
        checkProvider(params.cloudProvider);
        if (params.type.toLowerCase() !== ON_DEMAND_TYPE) return nothingToRefresh(params.type);
        const details = manifestDetails(body);
        await deps.guard.require(user, details.account, 'WRITE');
        const result = await deps.refresh.refresh(details);
        return result.state === 'PENDING' ? new Reply(202, result) : result;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/cache/:cloudProvider/:type',
      summary: 'On-demand refresh requests, pending or ended in the last minutes',
      tag: 'cache-controller',
      access: 'user',
      schema: {
        params: onDemandPath,
        querystring: z.object({
          id: z.string().optional().describe('only the request for this cache identifier'),
        }),
        response: { 200: z.array(onDemandRequestSchema) },
      },
      handler: async ({ params, query, user }) => {
        checkPath(params);
        return deps.refresh.list(await readable(deps.guard, user), query.id);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/cache/introspection',
      summary: 'Per agent and account: cached kinds and counts, last sync, event rate, last error',
      tag: 'cache-controller',
      access: 'user',
      schema: { response: { 200: z.array(agentIntrospectionSchema) } },
      handler: async ({ user }) => cacheIntrospection(await readable(deps.guard, user), deps.introspection),
    }),
  ];
}
