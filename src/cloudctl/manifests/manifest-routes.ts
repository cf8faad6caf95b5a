// clouddriver's ManifestController: one manifest with its status, moniker, artifacts and events
// (GET /manifests/{account}/{location}/{name}, and `_` or no location for cluster-scoped objects),
// the versions of a cluster's manifests, and the version a dynamic criteria names. READ on the
// account, as every read.
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import { manifestNameSchema } from '../caching/index.ts';
import { AGENT_ANSWERS, defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import type { IndexedObject, ReadModel } from '../read-model/index.ts';
import { criteriaSchema, pickTarget } from './dynamic-target.ts';
import { type ManifestReaderDeps, readManifest, resolveType } from './manifest-reader.ts';
import { type Coordinates, coordinatesSchema, manifestSchema } from './manifest-view.ts';

const TAG = 'manifests';

export interface ManifestRouteDeps extends ManifestReaderDeps {
  guard: Pick<AccountGuard, 'require'>;
  model: Pick<ReadModel, 'application'>;
}

const account = z.string().min(1);
const eventsQuery = z.object({
  includeEvents: queryBoolean(true).describe('include the Events about the object (read from the cluster)'),
});
const clusterPath = z.object({
  account,
  location: z.string().min(1).describe('the namespace'),
  kind: z.string().min(1).describe('Spinnaker\'s spelling, e.g. "replicaSet"'),
  app: z.string().min(1),
  cluster: z.string().min(1).describe('e.g. "replicaSet web"'),
});

/** The cluster's versions of the kind in the namespace: objects of the application whose moniker names the cluster. */
async function clusterVersions(
  deps: ManifestRouteDeps,
  params: z.infer<typeof clusterPath>,
): Promise<{ spinnakerKind: string; versions: IndexedObject[] }> {
  const type = await resolveType(deps.kinds, params.account, params.kind);
  const found = await deps.model.application(params.app, [params.account], undefined, {
    instances: false,
    loadBalancers: false,
    securityGroups: false,
  });
  const versions = found.objects.filter(
    (o) =>
      o.namespace === params.location &&
      o.spinnakerKind === type.spinnakerKind &&
      o.application === params.app &&
      o.cluster === params.cluster,
  );
  return { spinnakerKind: type.spinnakerKind, versions };
}

const coordinatesOf = (o: IndexedObject): Coordinates => ({
  kind: o.spinnakerKind,
  namespace: o.namespace,
  name: o.name,
});

function manifestRoute(deps: ManifestRouteDeps, url: string, summary: string, located: boolean): Route {
  const params = z.object({
    account,
    ...(located ? { location: z.string().min(1).describe('the namespace') } : {}),
    name: manifestNameSchema,
  });
  return defineRoute({
    method: 'GET',
    url,
    summary,
    tag: TAG,
    access: 'user',
    // An object the store does not hold (or its events) is read live: with no agent, or a failing
    // one, that read is a 503 or a 502.
    schema: { params, querystring: eventsQuery, response: { 200: manifestSchema, ...AGENT_ANSWERS } },
    handler: async ({ params: p, query, user }) => {
      await deps.guard.require(user, p.account, 'READ');
      const location = 'location' in p && typeof p.location === 'string' ? p.location : '';
      return readManifest(deps, {
        account: p.account,
        location,
        name: p.name,
        includeEvents: query.includeEvents,
      });
    },
  });
}

export function manifestRoutes(deps: ManifestRouteDeps): Route[] {
  return [
    manifestRoute(
      deps,
      '/manifests/:account/:location/:name',
      'A manifest as the cluster has it, with its status, moniker, artifacts and events',
      true,
    ),
    manifestRoute(deps, '/manifests/:account/_/:name', 'A cluster-scoped manifest, with its status', false),
    manifestRoute(deps, '/manifests/:account/:name', 'A cluster-scoped manifest, with its status', false),
    defineRoute({
      method: 'GET',
      url: '/manifests/:account/:location/:kind/cluster/:app/:cluster',
      summary: "The coordinates of a cluster's manifests of one kind in one namespace",
      tag: TAG,
      access: 'user',
      schema: { params: clusterPath, response: { 200: z.array(coordinatesSchema) } },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        return (await clusterVersions(deps, params)).versions.map(coordinatesOf);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/manifests/:account/:location/:kind/cluster/:app/:cluster/dynamic/:criteria',
      summary: "The version of a cluster's manifests a dynamic criteria names (newest, oldest, largest, ...)",
      tag: TAG,
      access: 'user',
      schema: {
        params: clusterPath.extend({ criteria: criteriaSchema }),
        response: { 200: coordinatesSchema },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const { versions } = await clusterVersions(deps, params);
        const target = pickTarget(
          versions.map((o) => ({ ...o, replicas: o.summary.desired ?? null })),
          params.criteria,
        );
        if (target === undefined) {
          throw new HttpError(
            'NOT_FOUND',
            `No manifests matching (account: ${params.account}, location: ${params.location}, kind: ${params.kind}, app ${params.app}, cluster: ${params.cluster}, criteria: ${params.criteria}) found`,
          );
        }
        return coordinatesOf(target);
      },
    }),
  ];
}
