// GET /instances/{account}/{region}/{id}: one pod as an Instance. The id is Spinnaker's "pod <name>"
// or the pod's bare name.
import { z } from 'zod';
import { defineRoute, HttpError, type Route } from '../http/index.ts';
import { instanceSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { instanceOf } from './views.ts';

export function instanceRoutes(deps: ReadRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/instances/:account/:region/:id',
      summary: 'One instance (pod): health from its phase and Ready condition',
      tag: 'instances',
      access: 'user',
      schema: {
        params: z.object({
          account: z.string().min(1),
          region: z.string().min(1).describe('the namespace'),
          id: z.string().min(1).describe('"pod <name>" or the pod\'s name'),
        }),
        response: { 200: instanceSchema },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const name = params.id.startsWith('pod ') ? params.id.slice(4) : params.id;
        const pod = await deps.model.find(params.account, params.region, 'pod', name);
        if (pod === undefined) {
          throw new HttpError('NOT_FOUND', `no instance pod ${name} in ${params.account}/${params.region}`);
        }
        return instanceOf(pod);
      },
    }),
  ];
}
