// POST /manifests/{account}/{location}/{name}/reapply: plans the manifest cloudctl last deployed of
// the object again, as a plan of operations (its diff shows what the drift changed back), which
// POST /plans/{id}/apply applies with the same guards as any plan. WRITE on the account: it is the
// first step of a change. The deploy takes fields back from the managers that drifted them
// (server-side apply with force): undoing their change is what re-apply is for.
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import { type KindResolver, manifestNameSchema, splitManifestName } from '../caching/index.ts';
import { AGENT_ANSWERS, defineRoute, HttpError, type Route } from '../http/index.ts';
import { type Planner, planRecordSchema } from '../plans/index.ts';
import type { DeployedManifestStore } from './deployed-manifest-store.ts';

export interface ReapplyRouteDeps {
  deployed: Pick<DeployedManifestStore, 'get'>;
  kinds: Pick<KindResolver, 'resolve'>;
  planner: Pick<Planner, 'plan'>;
  guard: Pick<AccountGuard, 'require'>;
}

const params = z.object({
  account: z.string().min(1),
  location: z.string().min(1).describe('the namespace; `_` for a cluster-scoped object'),
  name: manifestNameSchema,
});

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');

export function reapplyRoute(deps: ReapplyRouteDeps): Route {
  return defineRoute({
    method: 'POST',
    url: '/manifests/:account/:location/:name/reapply',
    summary:
      'Plan the manifest cloudctl last deployed of the object again (undoing drift); apply it with POST /plans/{id}/apply',
    tag: 'manifests',
    access: 'user',
    schema: { params, response: { 201: planRecordSchema, ...AGENT_ANSWERS } },
    handler: async ({ params: p, user }) => {
      await deps.guard.require(user, p.account, 'WRITE');
      const { kind: kindName, name } = splitManifestName(p.name);
      const type = await deps.kinds.resolve(p.account, kindName);
      const namespace = p.location === '_' ? '' : p.location;
      const recorded =
        type === undefined
          ? undefined
          : await deps.deployed.get({
              account: p.account,
              group: groupOf(type.apiVersion),
              kind: type.kind,
              namespace,
              name,
            });
      if (type === undefined || recorded === undefined) {
        throw new HttpError(
          'NOT_FOUND',
          `cloudctl has deployed no ${p.name} in ${namespace === '' ? 'cluster scope' : `namespace ${namespace}`} of account ${p.account}: nothing to apply again`,
        );
      }
      const where = namespace === '' ? name : `${namespace}/${name}`;
      return deps.planner.plan({
        source: 'operations',
        user: user.name,
        steps: [
          {
            type: 'deploy',
            payload: { manifests: [recorded.manifest], force: true },
            account: p.account,
            name: 'reapplyManifest',
            // What the task keeps as the client's request: the route's own coordinates.
            input: { account: p.account, location: p.location, manifestName: p.name },
            description: `Apply ${type.kind} ${where} again as cloudctl deployed it on ${recorded.deployedAt.toISOString()}`,
          },
        ],
      });
    },
  });
}
