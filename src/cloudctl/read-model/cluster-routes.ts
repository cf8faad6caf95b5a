// The clusters family under an application: names per account, views of one account's clusters,
// a cluster with its server groups and load balancers, and its server groups. A cluster is what
// server groups and their managers share through `moniker.spinnaker.io/cluster` (docs/read-model.md).
import { z } from 'zod';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import { readableApplication, SERVER_GROUP_PARTS } from './readable-application.ts';
import { CLOUD_PROVIDER, clusterSchema, clusterViewSchema, serverGroupSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { type ApplicationView, appendTo, clusterKeys, clusterOf, clusterViewOf } from './views.ts';

const TAG = 'clusters';

const accountPath = z.object({ application: z.string().min(1), account: z.string().min(1) });
const clusterPath = accountPath.extend({
  name: z.string().min(1).describe('the cluster, e.g. "deployment web"'),
});
const typedPath = clusterPath.extend({
  type: z.string().min(1).describe('the cloud provider: orchestrator'),
});
const serverGroupsPath = accountPath.extend({
  clusterName: z.string().min(1),
  type: z.string().min(1).describe('the cloud provider: orchestrator'),
});

function requireCluster(view: ApplicationView, account: string, name: string): void {
  if (!clusterKeys(view.objects, view.application).some((k) => k.account === account && k.name === name)) {
    throw new HttpError(
      'NOT_FOUND',
      `no cluster ${name} in account ${account} of application ${view.application}`,
    );
  }
}

function requireProvider(type: string): void {
  if (type !== CLOUD_PROVIDER)
    throw new HttpError('NOT_FOUND', `no cloud provider ${type}; only ${CLOUD_PROVIDER}`);
}

export function clusterRoutes(deps: ReadRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters',
      summary: "The application's cluster names per account",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ application: z.string().min(1) }),
        response: { 200: z.record(z.string(), z.array(z.string())) },
      },
      handler: async ({ params, user }) => {
        const view = await readableApplication(deps, user, params.application, {
          roles: ['serverGroup', 'serverGroupManager'],
        });
        const names: Record<string, string[]> = {};
        for (const { account, name } of clusterKeys(view.objects, view.application))
          appendTo(names, account, name);
        return names;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account',
      summary: "The application's clusters in one account, with server group and load balancer names",
      tag: TAG,
      access: 'user',
      schema: { params: accountPath, response: { 200: z.array(clusterViewSchema) } },
      handler: async ({ params, user }) => {
        // Server group and load balancer names (the moniker from the cluster's first object, of any role).
        const view = await readableApplication(deps, user, params.application, {
          account: params.account,
          parts: { loadBalancers: true },
        });
        return clusterKeys(view.objects, view.application)
          .filter((k) => k.account === params.account)
          .map((k) => clusterViewOf(view, k.account, k.name));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:name',
      summary: 'A cluster, one per cloud provider, with its server groups and load balancers',
      tag: TAG,
      access: 'user',
      schema: {
        params: clusterPath,
        querystring: z.object({
          expand: queryBoolean(true).describe("include the server groups' instances"),
        }),
        response: { 200: z.array(clusterSchema) },
      },
      handler: async ({ params, query, user }) => {
        const view = await readableApplication(deps, user, params.application, {
          account: params.account,
          parts: SERVER_GROUP_PARTS,
        });
        requireCluster(view, params.account, params.name);
        return [clusterOf(view, params.account, params.name, query.expand)];
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:name/:type',
      summary: 'A cluster of one cloud provider (orchestrator) with its server groups and load balancers',
      tag: TAG,
      access: 'user',
      schema: {
        params: typedPath,
        querystring: z.object({
          expand: queryBoolean(true).describe("include the server groups' instances"),
        }),
        response: { 200: clusterSchema },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        requireProvider(params.type);
        const view = await readableApplication(deps, user, params.application, { parts: SERVER_GROUP_PARTS });
        requireCluster(view, params.account, params.name);
        return clusterOf(view, params.account, params.name, query.expand);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:clusterName/:type/serverGroups',
      summary: "A cluster's server groups, optionally of one region (namespace)",
      tag: TAG,
      access: 'user',
      schema: {
        params: serverGroupsPath,
        querystring: z.object({
          expand: queryBoolean(true).describe('include the instances'),
          region: z.string().optional().describe('only this namespace'),
        }),
        response: { 200: z.array(serverGroupSchema) },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        requireProvider(params.type);
        const view = await readableApplication(deps, user, params.application, { parts: SERVER_GROUP_PARTS });
        requireCluster(view, params.account, params.clusterName);
        return clusterOf(view, params.account, params.clusterName, query.expand).serverGroups.filter(
          (sg) => query.region === undefined || sg.region === query.region,
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:clusterName/:type/serverGroups/:serverGroupName',
      summary: 'One server group of a cluster, with its instances; the first by namespace without region',
      tag: TAG,
      access: 'user',
      schema: {
        params: serverGroupsPath.extend({ serverGroupName: z.string().min(1).describe('"<kind> <name>"') }),
        querystring: z.object({ region: z.string().optional().describe('the namespace') }),
        response: { 200: serverGroupSchema },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        requireProvider(params.type);
        const view = await readableApplication(deps, user, params.application, { parts: SERVER_GROUP_PARTS });
        requireCluster(view, params.account, params.clusterName);
        const found = clusterOf(view, params.account, params.clusterName, true).serverGroups.find(
          (sg) =>
            sg.name === params.serverGroupName && (query.region === undefined || sg.region === query.region),
        );
        if (found === undefined) {
          throw new HttpError(
            'NOT_FOUND',
            `no server group ${params.serverGroupName} in cluster ${params.clusterName}`,
          );
        }
        return found;
      },
    }),
  ];
}
