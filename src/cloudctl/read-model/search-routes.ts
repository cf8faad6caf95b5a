// GET /search: applications, clusters and objects (server groups, instances, load balancers,
// security groups) whose name or application contains `q`, in the readable accounts, one result set
// for the orchestrator paged from 1. Matching runs on the index's columns.
import { z } from 'zod';
import { defineRoute, queryInteger, type Route } from '../http/index.ts';
import type { Role } from './object-mapping.ts';
import type { IndexedObject } from './read-model.ts';
import { CLOUD_PROVIDER, searchResultSetSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { fullName } from './views.ts';

const TYPES = [
  'applications',
  'clusters',
  'serverGroups',
  'instances',
  'loadBalancers',
  'securityGroups',
] as const;
type SearchType = (typeof TYPES)[number];
const ROLE_OF: Partial<Record<SearchType, Role>> = {
  serverGroups: 'serverGroup',
  instances: 'instance',
  loadBalancers: 'loadBalancer',
  securityGroups: 'securityGroup',
};
const FIELD_OF: Record<string, string> = {
  serverGroup: 'serverGroup',
  instance: 'instanceId',
  loadBalancer: 'loadBalancer',
  securityGroup: 'securityGroup',
};

const typeList = z
  .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.enum(TYPES)).min(1))
  .describe(`what to search, repeated: ${TYPES.join(', ')}`);

function objectResult(o: IndexedObject): Record<string, string> {
  return {
    type: `${o.role}s`,
    provider: CLOUD_PROVIDER,
    account: o.account,
    region: o.namespace,
    name: fullName(o),
    [FIELD_OF[o.role] ?? o.role]: fullName(o),
    ...(o.application === null ? {} : { application: o.application }),
    ...(o.application === null || o.cluster === null ? {} : { cluster: o.cluster }),
  };
}

export function searchRoutes(deps: ReadRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/search',
      summary: 'Search applications, clusters, server groups, instances, load balancers and security groups',
      tag: 'search',
      access: 'user',
      schema: {
        querystring: z.object({
          q: z
            .string()
            .optional()
            .describe('a case-insensitive part of the name or application; none matches all'),
          type: typeList,
          platform: z.string().optional().describe('only this cloud provider (orchestrator)'),
          page: queryInteger(z.int().min(1).max(1_000_000).default(1)).describe('the page, from 1'),
          pageSize: queryInteger(z.int().min(1).max(10_000).default(10_000)).describe('results per page'),
        }),
        response: { 200: z.array(searchResultSetSchema) },
      },
      handler: async ({ query, user }) => {
        const q = query.q ?? '';
        const set = { platform: CLOUD_PROVIDER, query: q, pageNumber: query.page, pageSize: query.pageSize };
        if (query.platform !== undefined && query.platform !== CLOUD_PROVIDER) {
          return [{ ...set, totalMatches: 0, results: [] }];
        }
        const types = new Set(query.type);
        const accounts = (await deps.guard.visible(user)).map((a) => a.name);
        const needle = q.toLowerCase();
        const named: Array<Record<string, string>> = [];
        if (types.has('applications') || types.has('clusters')) {
          const rows = await deps.model.applicationClusters(accounts);
          const applications = new Set<string>();
          const clusters = new Map<string, Record<string, string>>();
          for (const row of rows) {
            if (types.has('applications') && row.application.toLowerCase().includes(needle)) {
              applications.add(row.application);
            }
            if (
              types.has('clusters') &&
              row.cluster !== null &&
              (row.cluster.toLowerCase().includes(needle) || row.application.toLowerCase().includes(needle))
            ) {
              clusters.set(`${row.account}\0${row.application}\0${row.cluster}`, {
                type: 'clusters',
                provider: CLOUD_PROVIDER,
                account: row.account,
                application: row.application,
                cluster: row.cluster,
                name: row.cluster,
              });
            }
          }
          for (const application of [...applications].sort()) {
            named.push({ type: 'applications', provider: CLOUD_PROVIDER, application, name: application });
          }
          named.push(
            ...[...clusters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r),
          );
        }
        const roles = TYPES.flatMap((t) => {
          const role = ROLE_OF[t];
          return role !== undefined && types.has(t) ? [role] : [];
        });
        const start = (query.page - 1) * query.pageSize;
        const fromNamed = named.slice(start, start + query.pageSize);
        const offset = Math.max(0, start - named.length);
        const found = await deps.model.search(accounts, roles, q, offset, query.pageSize - fromNamed.length);
        return [
          {
            ...set,
            totalMatches: named.length + found.total,
            results: [...fromNamed, ...found.objects.map(objectResult)],
          },
        ];
      },
    }),
  ];
}
