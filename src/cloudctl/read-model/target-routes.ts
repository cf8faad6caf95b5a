// GET .../clusters/{account}/{clusterName}/{cloudProvider}/{scope}/serverGroups/target/{target} and
// its {summaryType} form: the server group a dynamic target names within one namespace (scope) of a
// cluster, or a summary of it (`image`: its pod template's images).
import { z } from 'zod';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import { readableApplication, SERVER_GROUP_PARTS } from './readable-application.ts';
import { CLOUD_PROVIDER, type ServerGroup, serverGroupSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { pickTarget, TARGETS } from './server-group-target.ts';
import { type ApplicationView, clusterKeys, clusterOf, fullName } from './views.ts';

const TAG = 'clusters';

const targetPath = z.object({
  application: z.string().min(1),
  account: z.string().min(1),
  clusterName: z.string().min(1),
  cloudProvider: z.string().min(1).describe('orchestrator'),
  scope: z.string().min(1).describe('the namespace'),
  target: z
    .enum(TARGETS)
    .describe('which server group: the newest, the one before it, the oldest, the largest, or the only one'),
});
const targetQuery = z.object({
  onlyEnabled: queryBoolean(false).describe('consider only server groups a Service selects'),
  validateOldest: queryBoolean(true).describe('a single server group is not the oldest'),
});

const imageSummarySchema = z
  .object({
    serverGroupName: z.string(),
    imageId: z.string().nullable().describe("the first container's image"),
    imageName: z.string().nullable(),
    images: z.array(z.string()).describe("every container's image, in order"),
  })
  .describe('Summary');

export function targetRoutes(deps: ReadRouteDeps): Route[] {
  const find = async (
    user: Parameters<typeof readableApplication>[1],
    params: z.infer<typeof targetPath>,
    query: z.infer<typeof targetQuery>,
  ): Promise<{ view: ApplicationView; found: ServerGroup }> => {
    await deps.guard.require(user, params.account, 'READ');
    if (params.cloudProvider !== CLOUD_PROVIDER) {
      throw new HttpError('NOT_FOUND', `no cloud provider ${params.cloudProvider}; only ${CLOUD_PROVIDER}`);
    }
    const view = await readableApplication(deps, user, params.application, { parts: SERVER_GROUP_PARTS });
    if (
      !clusterKeys(view.objects, view.application).some(
        (k) => k.account === params.account && k.name === params.clusterName,
      )
    ) {
      throw new HttpError(
        'NOT_FOUND',
        `no cluster ${params.clusterName} in account ${params.account} of application ${params.application}`,
      );
    }
    const candidates = clusterOf(view, params.account, params.clusterName, true).serverGroups.filter(
      (sg) => sg.region === params.scope && (!query.onlyEnabled || !sg.disabled),
    );
    const outcome = pickTarget(candidates, params.target, query.validateOldest);
    if ('missing' in outcome) {
      throw new HttpError(
        'NOT_FOUND',
        `no target ${params.target} in ${params.clusterName} (${params.scope}): ${outcome.missing}`,
      );
    }
    return { view, found: outcome.found };
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:clusterName/:cloudProvider/:scope/serverGroups/target/:target',
      summary: 'The server group a dynamic target names in one namespace of a cluster',
      tag: TAG,
      access: 'user',
      schema: { params: targetPath, querystring: targetQuery, response: { 200: serverGroupSchema } },
      handler: async ({ params, query, user }) => (await find(user, params, query)).found,
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/clusters/:account/:clusterName/:cloudProvider/:scope/serverGroups/target/:target/:summaryType',
      summary: "A summary of the targeted server group: `image`, its pod template's images",
      tag: TAG,
      access: 'user',
      schema: {
        params: targetPath.extend({ summaryType: z.enum(['image']).describe('the summary: image') }),
        querystring: targetQuery.pick({ onlyEnabled: true }),
        response: { 200: imageSummarySchema },
      },
      handler: async ({ params, query, user }) => {
        const { view, found } = await find(user, params, { ...query, validateOldest: true });
        const object = view.objects.find(
          (o) => o.account === found.account && o.namespace === found.namespace && fullName(o) === found.name,
        );
        const images = object?.summary.images ?? [];
        return {
          serverGroupName: found.name,
          imageId: images[0] ?? null,
          imageName: images[0] ?? null,
          images,
        };
      },
    }),
  ];
}
