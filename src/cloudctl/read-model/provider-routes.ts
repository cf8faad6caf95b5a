// The provider paths Spinnaker's clients call without naming an application: one server group by
// account, region (namespace) and "<kind> <name>"; the server groups of several applications (or
// of several ids); a load balancer by account, region and name under its cloud provider. The same
// records as the application routes (views.ts), built from the index around the one object.
import { z } from 'zod';
import type { Principal } from '../auth/index.ts';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import type { IndexedObject } from './read-model.ts';
import { readableApplication, SERVER_GROUP_PARTS } from './readable-application.ts';
import { CLOUD_PROVIDER, loadBalancerSchema, type ServerGroup, serverGroupSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { byName, loadBalancerOf, loadBalancersOf, serverGroupOf } from './views.ts';

const TAG = 'provider';

/**
 * "a,b" or a repeated parameter (`?ids=a&ids=b`), as Spring reads a List<String>; empty when absent.
 * Optional in the document: a rule between two parameters ("one or the other") has no words in
 * Swagger 2.0, so the handler enforces it and the document says it in the descriptions.
 */
const list = (description: string) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? [v] : v),
      z.array(z.string()).transform((values) => values.flatMap((v) => v.split(',')).filter((v) => v !== '')),
    )
    .optional()
    .transform((values) => values ?? [])
    .describe(description);

const objectPath = z.object({
  account: z.string().min(1),
  region: z.string().min(1).describe('the namespace'),
  name: z.string().regex(/^\S+ \S+$/, 'expected "<kind> <name>", e.g. "replicaSet web-v001"'),
});

/** Without a moniker, clouddriver's fallback application: the name up to its first '-'. */
const applicationOf = (o: IndexedObject) => o.application ?? o.name.split('-')[0] ?? o.name;

export function providerRoutes(deps: ReadRouteDeps): Route[] {
  /** One server group with what surrounds it in its namespace; undefined when there is none. */
  const serverGroup = async (account: string, region: string, fullName: string, expand: boolean) => {
    const [kind = '', name = ''] = fullName.split(' ');
    const sg = await deps.model.find(account, region, kind, name);
    if (sg === undefined || sg.role !== 'serverGroup') return undefined;
    const [instances, loadBalancers, securityGroups] = await Promise.all([
      deps.model.ownedBy(sg, 'instance'),
      deps.model.byRole([account], 'loadBalancer', region),
      deps.model.byRole([account], 'securityGroup', region),
    ]);
    const context = { application: applicationOf(sg), instances, loadBalancers, securityGroups, expand };
    return serverGroupOf(sg, context);
  };

  /** The application's server groups as GET /applications/{app}/serverGroups lists them; none if unknown. */
  const applicationServerGroups = async (user: Principal, application: string): Promise<ServerGroup[]> => {
    try {
      const view = await readableApplication(deps, user, application, {
        roles: ['serverGroup'],
        parts: SERVER_GROUP_PARTS,
      });
      const context = { ...view, expand: false };
      return view.objects
        .filter((o) => o.role === 'serverGroup')
        .sort(byName)
        .map((sg) => serverGroupOf(sg, context));
    } catch (error) {
      if (error instanceof HttpError && error.code === 'NOT_FOUND') return [];
      throw error;
    }
  };

  /** Server groups by "<account>:<region>:<name>" ids, those the user may read and that exist. */
  const serverGroupsById = async (user: Principal, ids: readonly string[]): Promise<ServerGroup[]> => {
    const tokens = ids.map((id) => id.split(':'));
    const invalid = tokens.filter((t) => t.length !== 3).map((t) => t.join(':'));
    if (invalid.length > 0) {
      throw new HttpError(
        'REQUEST_INVALID',
        `query.ids: expected ids in the format <account>:<region>:<name> but got invalid ids: ${invalid.join(', ')}`,
      );
    }
    const readable = new Set((await deps.guard.visible(user)).map((a) => a.name));
    const found = await Promise.all(
      tokens.map(([account = '', region = '', name = '']) =>
        readable.has(account) ? serverGroup(account, region, name, true) : undefined,
      ),
    );
    return found.filter((sg): sg is ServerGroup => sg !== undefined);
  };

  return [
    defineRoute({
      method: 'GET',
      url: '/serverGroups/:account/:region/:name',
      summary:
        'One server group by account, namespace and "<kind> <name>", with its instances unless told not',
      tag: TAG,
      access: 'user',
      schema: {
        params: objectPath,
        querystring: z.object({ includeDetails: queryBoolean(true).describe('include the instances') }),
        response: { 200: serverGroupSchema },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const found = await serverGroup(params.account, params.region, params.name, query.includeDetails);
        if (found === undefined) {
          throw new HttpError(
            'NOT_FOUND',
            `Server group not found (account: ${params.account}, region: ${params.region}, name: ${params.name})`,
          );
        }
        return found;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/serverGroups',
      summary: 'The server groups of the applications, or of the ids (one or the other)',
      tag: TAG,
      access: 'user',
      schema: {
        querystring: z.object({
          applications: list(
            "application names, comma-separated or repeated; give either 'applications' or 'ids', not both",
          ),
          ids: list(
            "\"<account>:<region>:<kind> <name>\" ids, comma-separated or repeated; give either 'applications' or 'ids', not both",
          ),
          cloudProvider: z.string().optional().describe('only this cloud provider’s (orchestrator)'),
        }),
        response: { 200: z.array(serverGroupSchema) },
      },
      handler: async ({ query, user }) => {
        const { applications, ids } = query;
        if (applications.length > 0 === ids.length > 0) {
          throw new HttpError(
            'REQUEST_INVALID',
            "query parameters applications and ids: provide either 'applications' or 'ids' (but not both)",
          );
        }
        if (ids.length > 0) return serverGroupsById(user, ids);
        if (query.cloudProvider !== undefined && query.cloudProvider !== CLOUD_PROVIDER) return [];
        const lists = await Promise.all(
          [...new Set(applications)].map((a) => applicationServerGroups(user, a)),
        );
        return lists.flat();
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/:cloudProvider/loadBalancers/:account/:region/:name',
      summary: 'A load balancer by account, namespace and "<kind> <name>"; an empty list when there is none',
      tag: TAG,
      access: 'user',
      schema: {
        params: objectPath.extend({ cloudProvider: z.string().min(1).describe('orchestrator') }),
        response: { 200: z.array(loadBalancerSchema) },
      },
      handler: async ({ params, user }) => {
        if (params.cloudProvider !== CLOUD_PROVIDER) {
          throw new HttpError('NOT_FOUND', `No cloud provider named ${params.cloudProvider} found`);
        }
        await deps.guard.require(user, params.account, 'READ');
        const [kind = '', name = ''] = params.name.split(' ');
        const lb = await deps.model.find(params.account, params.region, kind, name);
        if (lb === undefined || lb.role !== 'loadBalancer') return [];
        // The server groups of the namespace it selects (of any application), with their pods; an
        // Ingress selects those of the Services it routes to, so every load balancer there counts.
        const [candidates, loadBalancers] = await Promise.all([
          deps.model.byRole([params.account], 'serverGroup', params.region),
          deps.model.byRole([params.account], 'loadBalancer', params.region),
        ]);
        const selected = candidates.filter((sg) =>
          loadBalancersOf(sg, loadBalancers).some((l) => l.kind === lb.kind && l.name === lb.name),
        );
        const instances = (
          await Promise.all(selected.map((sg) => deps.model.ownedBy(sg, 'instance')))
        ).flat();
        const application = applicationOf(lb);
        const context = { application, instances, loadBalancers, securityGroups: [], expand: true };
        return [loadBalancerOf(lb, selected, context)];
      },
    }),
  ];
}
