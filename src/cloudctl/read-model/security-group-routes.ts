// The securityGroups family: NetworkPolicies as security groups, by account, cloud provider and
// region (namespace), as clouddriver's SecurityGroupController serves them. The lists leave out
// accounts the user may not read; the account routes refuse. A group is named as clouddriver's
// Kubernetes provider reads the name: "<kind> <name>" is looked up by its name alone, whatever the
// kind's spelling (`networkPolicy`, `NetworkPolicy`, `networkpolicy.networking.k8s.io`), among the
// kinds that are security groups; we also take the bare name, which clouddriver refuses.
import { z } from 'zod';
import { defineRoute, HttpError, queryBoolean, type Route } from '../http/index.ts';
import type { IndexedObject } from './read-model.ts';
import { CLOUD_PROVIDER, securityGroupSchema, securityGroupSummarySchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { appendTo, securityGroupOf, securityGroupSummaryOf } from './views.ts';

const TAG = 'securityGroups';
const summaries = z.array(securityGroupSummarySchema);
const byRegion = z.record(z.string(), summaries);

/** The object name a security group is asked for by: the part after "<kind> ", or the bare name. */
function nameAskedFor(nameOrId: string): string {
  const space = nameOrId.indexOf(' ');
  return space < 0 ? nameOrId : nameOrId.slice(space + 1);
}

function summariesByRegion(groups: readonly IndexedObject[]): z.infer<typeof byRegion> {
  const out: z.infer<typeof byRegion> = {};
  for (const group of groups) appendTo(out, group.namespace, securityGroupSummaryOf(group));
  return out;
}

export function securityGroupRoutes(deps: ReadRouteDeps): Route[] {
  /** The account's groups of one name, in one namespace or in all; read on the role index. */
  const named = async (account: string, nameOrId: string, region?: string) => {
    const name = nameAskedFor(nameOrId);
    return (await deps.model.byRole([account], 'securityGroup', region)).filter((g) => g.name === name);
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
      summary:
        "An account's security groups by cloud provider: by region (namespace), or a list of one region's",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ account: z.string().min(1) }),
        querystring: z.object({
          region: z
            .string()
            .min(1)
            .optional()
            .describe("the namespace: the answer is then the cloud provider's list of its groups"),
        }),
        response: {
          200: z
            .record(z.string(), z.union([summaries, byRegion]))
            .describe(
              'by cloud provider: without region, a map of region to groups; with region, the list of its groups',
            ),
        },
      },
      handler: async ({ params, query, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const groups = await deps.model.byRole([params.account], 'securityGroup', query.region);
        if (groups.length === 0) return {};
        return {
          [CLOUD_PROVIDER]:
            query.region === undefined ? summariesByRegion(groups) : groups.map(securityGroupSummaryOf),
        };
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
        response: { 200: byRegion },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        if (params.cloudProvider !== CLOUD_PROVIDER) return {};
        return summariesByRegion(await deps.model.byRole([params.account], 'securityGroup'));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/securityGroups/:account/:cloudProvider/:securityGroupName',
      summary: "An account's security groups of one name, by region (namespace)",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({
          account: z.string().min(1),
          cloudProvider: z.string().min(1),
          securityGroupName: z
            .string()
            .min(1)
            .describe('"<kind> <name>" (found by its name, whatever the kind\'s spelling) or the bare name'),
        }),
        response: { 200: byRegion },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        if (params.cloudProvider !== CLOUD_PROVIDER) return {};
        return summariesByRegion(await named(params.account, params.securityGroupName));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/securityGroups/:account/:cloudProvider/:region/:securityGroupNameOrId',
      summary: 'One security group, by "<kind> <name>" (found by its name) or the bare name',
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
            ? (await named(params.account, wanted, params.region))[0]
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
