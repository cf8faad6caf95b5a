// The securityGroups family: NetworkPolicies as security groups, by account, cloud provider and
// region (namespace). The lists leave out accounts the user may not read; the account routes refuse.
import { z } from 'zod';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import { CLOUD_PROVIDER, securityGroupSchema, securityGroupSummarySchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { appendTo, fullName, securityGroupOf, securityGroupSummaryOf } from './views.ts';

const TAG = 'securityGroups';
const summaries = z.array(securityGroupSummarySchema);

export function securityGroupRoutes(deps: ReadRouteDeps): Route[] {
  const byRegion = async (account: string, region?: string) => {
    const groups = await deps.model.byRole([account], 'securityGroup', region);
    const out: Record<string, z.infer<typeof summaries>> = {};
    for (const group of groups) appendTo(out, group.namespace, securityGroupSummaryOf(group));
    return out;
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/securityGroups',
      summary: 'Security groups (NetworkPolicies) by account, cloud provider and region',
      tag: TAG,
      access: 'user',
      schema: {
        response: { 200: z.record(z.string(), z.record(z.string(), z.record(z.string(), summaries))) },
      },
      handler: async ({ user }) => {
        const accounts = (await deps.guard.visible(user)).map((a) => a.name);
        const groups = await deps.model.byRole(accounts, 'securityGroup');
        const byAccount = new Map<string, Record<string, z.infer<typeof summaries>>>();
        for (const group of groups) {
          let regions = byAccount.get(group.account);
          if (regions === undefined) {
            regions = {};
            byAccount.set(group.account, regions);
          }
          appendTo(regions, group.namespace, securityGroupSummaryOf(group));
        }
        return Object.fromEntries(
          [...byAccount.entries()].map(([account, regions]) => [account, { [CLOUD_PROVIDER]: regions }]),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/securityGroups/:account',
      summary: "An account's security groups in one region, by cloud provider",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ account: z.string().min(1) }),
        querystring: z.object({ region: z.string().min(1).describe('the namespace') }),
        response: { 200: z.record(z.string(), summaries) },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const groups = await deps.model.byRole([params.account], 'securityGroup', query.region);
        return groups.length === 0 ? {} : { [CLOUD_PROVIDER]: groups.map(securityGroupSummaryOf) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/securityGroups/:account/:cloudProvider',
      summary: "An account's security groups of one cloud provider, by region",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ account: z.string().min(1), cloudProvider: z.string().min(1) }),
        response: { 200: z.record(z.string(), summaries) },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        if (params.cloudProvider !== CLOUD_PROVIDER) return {};
        return byRegion(params.account);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/securityGroups/:account/:cloudProvider/:region/:securityGroupNameOrId',
      summary: 'One security group, by "networkPolicy <name>" or the bare name',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({
          account: z.string().min(1),
          cloudProvider: z.string().min(1),
          region: z.string().min(1),
          securityGroupNameOrId: z.string().min(1),
        }),
        querystring: z.object({
          getById: queryBoolean(false).describe('ids and names are the same here: "networkPolicy <name>"'),
          vpcId: z.string().optional().describe('ignored: an orchestrator has no VPCs'),
        }),
        response: { 200: securityGroupSchema },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const wanted = params.securityGroupNameOrId;
        const found =
          params.cloudProvider === CLOUD_PROVIDER
            ? (await deps.model.byRole([params.account], 'securityGroup', params.region)).find(
                (g) => fullName(g) === wanted || g.name === wanted,
              )
            : undefined;
        if (found === undefined) {
          throw new HttpError(
            'NOT_FOUND',
            `no security group ${wanted} in ${params.account}/${params.region}`,
          );
        }
        return securityGroupOf(found);
      },
    }),
  ];
}
