// GET /applications and what hangs under one application: its view, server groups, server group
// managers, load balancers and raw resources. Only accounts the user may read contribute; an
// application none of whose objects the user may read is unknown (404).
import { z } from 'zod';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import { readableApplication, SERVER_GROUP_PARTS } from './readable-application.ts';
import {
  applicationSchema,
  applicationViewSchema,
  CLOUD_PROVIDER,
  loadBalancerSchema,
  rawResourceSchema,
  serverGroupManagerSchema,
  serverGroupSchema,
} from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import {
  appendTo,
  byName,
  clusterKeys,
  clusterOf,
  fullName,
  loadBalancerOf,
  rawResourceOf,
  serverGroupManagerOf,
  serverGroupOf,
} from './views.ts';

const TAG = 'applications';

/** A repeated query parameter (`?clusters=a&clusters=b`); one occurrence arrives as a plain string. */
const repeatedOptional = (description: string) =>
  z
    .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()).optional())
    .describe(description);

const attributes = (name: string) => ({ name, cloudProviders: CLOUD_PROVIDER });

export function applicationRoutes(deps: ReadRouteDeps): Route[] {
  const applicationPath = z.object({ application: z.string().min(1) });
  return [
    defineRoute({
      method: 'GET',
      url: '/applications',
      summary: 'Applications, with their cluster names per account when expanded',
      tag: TAG,
      access: 'user',
      schema: {
        querystring: z.object({
          expand: queryBoolean(true).describe('include cluster names per account'),
          restricted: queryBoolean(true).describe(
            'only applications with objects in accounts the user may read; when false, every application is named, clusters still only from readable accounts',
          ),
        }),
        response: { 200: z.array(applicationSchema) },
      },
      handler: async ({ query, user }) => {
        const accounts = (await deps.guard.visible(user)).map((a) => a.name);
        const rows = await deps.model.applicationClusters(accounts);
        const clusters = new Map<string, Map<string, Set<string>>>();
        const entry = (name: string) => {
          let byAccount = clusters.get(name);
          if (byAccount === undefined) {
            byAccount = new Map();
            clusters.set(name, byAccount);
          }
          return byAccount;
        };
        for (const row of rows) {
          const byAccount = entry(row.application);
          if (row.cluster === null) continue;
          let names = byAccount.get(row.account);
          if (names === undefined) {
            names = new Set();
            byAccount.set(row.account, names);
          }
          names.add(row.cluster);
        }
        if (!query.restricted) for (const name of await deps.model.applicationNames()) entry(name);
        return [...clusters.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, byAccount]) => ({
            name,
            attributes: attributes(name),
            clusterNames: query.expand
              ? Object.fromEntries(
                  [...byAccount.entries()].sort().map(([a, names]) => [a, [...names].sort()]),
                )
              : {},
          }));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application',
      summary: 'An application: its clusters per account with their server group and load balancer names',
      tag: TAG,
      access: 'user',
      schema: { params: applicationPath, response: { 200: applicationViewSchema } },
      handler: async ({ params, user }) => {
        // Names of clusters, their server groups and load balancers: no instances, no NetworkPolicies.
        const view = await readableApplication(deps, user, params.application, {
          roles: ['serverGroup', 'serverGroupManager'],
          parts: { loadBalancers: true },
        });
        const clusters: Record<
          string,
          Array<z.infer<typeof applicationViewSchema>['clusters'][string][number]>
        > = {};
        for (const { account, name } of clusterKeys(view.objects, view.application)) {
          const cluster = clusterOf(view, account, name, false);
          appendTo(clusters, account, {
            name,
            provider: CLOUD_PROVIDER,
            serverGroups: cluster.serverGroups.map((sg) => sg.name),
            loadBalancers: cluster.loadBalancers.map((lb) => lb.name),
          });
        }
        return { name: view.application, attributes: attributes(view.application), clusters };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/serverGroups',
      summary: "The application's server groups, with their instances when expanded",
      tag: TAG,
      access: 'user',
      schema: {
        params: applicationPath,
        querystring: z.object({
          cloudProvider: z.string().optional().describe('only this cloud provider’s (orchestrator)'),
          clusters: repeatedOptional('only these clusters, each "<account>:<cluster name>"'),
          expand: queryBoolean(false).describe('include each server group’s instances'),
        }),
        response: { 200: z.array(serverGroupSchema) },
      },
      handler: async ({ params, query, user }) => {
        const view = await readableApplication(deps, user, params.application, {
          roles: ['serverGroup'],
          parts: SERVER_GROUP_PARTS,
        });
        if (query.cloudProvider !== undefined && query.cloudProvider !== CLOUD_PROVIDER) return [];
        const wanted = query.clusters === undefined ? undefined : new Set(query.clusters);
        const context = { ...view, expand: query.expand };
        return view.objects
          .filter((o) => o.role === 'serverGroup')
          .sort(byName)
          .map((sg) => serverGroupOf(sg, context))
          .filter((sg) => wanted === undefined || wanted.has(`${sg.account}:${sg.cluster}`));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/serverGroups/:account/:region/:name',
      summary: 'One server group of the application, with its instances unless includeDetails is false',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({
          application: z.string().min(1),
          account: z.string().min(1),
          region: z.string().min(1).describe('the namespace'),
          name: z.string().min(1).describe('"<kind> <name>", e.g. "replicaSet web-7f7f"'),
        }),
        querystring: z.object({ includeDetails: queryBoolean(true).describe('include the instances') }),
        response: { 200: serverGroupSchema },
      },
      handler: async ({ params, query, user }) => {
        const view = await readableApplication(deps, user, params.application, {
          account: params.account,
          roles: ['serverGroup'],
          parts: SERVER_GROUP_PARTS,
        });
        const found = view.objects.find(
          (o) =>
            o.role === 'serverGroup' &&
            o.account === params.account &&
            o.namespace === params.region &&
            fullName(o) === params.name,
        );
        if (found === undefined) {
          throw new HttpError(
            'NOT_FOUND',
            `no server group ${params.name} in ${params.account}/${params.region} of application ${params.application}`,
          );
        }
        return serverGroupOf(found, { ...view, expand: query.includeDetails });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/serverGroupManagers',
      summary: "The application's server group managers (Deployments) with the server groups they own",
      tag: TAG,
      access: 'user',
      schema: { params: applicationPath, response: { 200: z.array(serverGroupManagerSchema) } },
      handler: async ({ params, user }) => {
        // Managers with the names of the server groups they own: nothing around those.
        const view = await readableApplication(deps, user, params.application, {
          roles: ['serverGroup', 'serverGroupManager'],
        });
        return view.objects
          .filter((o) => o.role === 'serverGroupManager')
          .sort(byName)
          .map((m) => serverGroupManagerOf(m, view));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/loadBalancers',
      summary: "The application's load balancers (Services, Ingresses) with the server groups they select",
      tag: TAG,
      access: 'user',
      schema: { params: applicationPath, response: { 200: z.array(loadBalancerSchema) } },
      handler: async ({ params, user }) => {
        // LoadBalancerServerGroup shows instances and isDisabled, not security groups.
        const view = await readableApplication(deps, user, params.application, {
          roles: ['serverGroup', 'loadBalancer'],
          parts: { instances: true, loadBalancers: true },
        });
        const serverGroups = view.objects.filter((o) => o.role === 'serverGroup');
        const context = { ...view, expand: true };
        return view.objects
          .filter((o) => o.role === 'loadBalancer')
          .sort(byName)
          .map((lb) => loadBalancerOf(lb, serverGroups, context));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/rawResources',
      summary: 'Every object carrying the application, whatever its kind',
      tag: TAG,
      access: 'user',
      schema: { params: applicationPath, response: { 200: z.array(rawResourceSchema) } },
      handler: async ({ params, user }) => {
        const view = await readableApplication(deps, user, params.application, { roles: 'every role' });
        return view.objects
          .filter((o) => o.application === params.application)
          .sort(byName)
          .map(rawResourceOf);
      },
    }),
  ];
}
