// The cache controller of the API we mirror: on-demand refresh of one object
// (POST /cache/{cloudProvider}/{type}), the requests pending or recently ended (GET on the same path)
// and the cache introspection (GET /cache/introspection). Refreshing needs WRITE on the account;
// the lists show only the accounts the user may READ.
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
import { type OnDemandRefresh, onDemandRequestSchema, onDemandResultSchema } from './on-demand-refresh.ts';

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

/** Unknown providers and types are paths nothing is served at: 404, as for any unknown URL. */
function checkPath(params: z.infer<typeof onDemandPath>): void {
  if (params.cloudProvider !== PROVIDER)
    throw new HttpError(
      'NOT_FOUND',
      `no cloud provider '${params.cloudProvider}': this API serves '${PROVIDER}'`,
    );
  if (params.type.toLowerCase() !== ON_DEMAND_TYPE)
    throw new HttpError(
      'NOT_FOUND',
      `no on-demand type '${params.type}': ${PROVIDER} refreshes '${ON_DEMAND_TYPE}'`,
    );
}

async function readable(guard: AccountGuard, user: Principal): Promise<Set<string>> {
  return new Set((await guard.visible(user, 'READ')).map((a) => a.name));
}

export function cacheRoutes(deps: CacheRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/cache/:cloudProvider/:type',
      summary: 'Refresh one object in the cache now: the agent reads it, cloudctl stores or removes it',
      tag: 'cache-controller',
      access: 'user',
      schema: {
        params: onDemandPath,
        body: z.object({
          account: z.string().min(1).describe('the account whose cluster holds the object'),
          location: z.string().default('').describe('the namespace; empty for cluster-scoped objects'),
          name: manifestNameSchema,
        }),
        response: {
          200: onDemandResultSchema.describe(
            'Stored, removed (not in the cluster), or a kind the account does not cache',
          ),
          202: onDemandResultSchema.describe('Accepted: the agent has not answered yet; the request goes on'),
          502: errorBodySchema.describe('The agent could not read the object'),
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, body, user }) => {
        checkPath(params);
        await deps.guard.require(user, body.account, 'WRITE');
        const result = await deps.refresh.refresh(body);
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
