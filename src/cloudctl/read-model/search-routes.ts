// GET /search: applications, clusters and objects (server groups, instances, load balancers,
// security groups) whose name or application contains `q`, in the readable accounts, one result set
// for the orchestrator paged from 1. A type may also be a Kubernetes kind in clouddriver's spelling
// (`deployment`, `configMap`, `Rollout.argoproj.io`), as Deck's resource pickers ask: the objects
// of that kind whose account, namespace, name, application or cluster contains `q`, as clouddriver's
// Kubernetes search answers them. Matching runs on the index's and the cache's key columns.
import { z } from 'zod';
import { spinnakerKind } from '../caching/index.ts';
import { defineRoute, queryInteger, type Route } from '../http/index.ts';
import { type Role, roleOf } from './object-mapping.ts';
import type { IndexedObject, KindKey, KindObject } from './read-model.ts';
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
const isSearchType = (type: string): type is SearchType => (TYPES as readonly string[]).includes(type);

const typeList = z
  .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string().min(1)).min(1))
  .describe(
    `what to search, repeated: ${TYPES.join(', ')}, or a Kubernetes kind as Spinnaker spells it ` +
      '(deployment, configMap, Rollout.argoproj.io; its case aside); a type nothing is of finds nothing',
  );

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

/** Clouddriver's Spinnaker kinds of the kinds whose handlers have one besides their role's (configs). */
const CONFIGS = new Set(['/ConfigMap', '/Secret', '/PersistentVolume', '/PersistentVolumeClaim']);

/** The Spinnaker kind clouddriver's handler gives the kind: `serverGroups`, `configs`, `unclassified`. */
function spinnakerKindOf(o: KindKey): string {
  if (CONFIGS.has(`${o.group}/${o.kind}`)) return 'configs';
  if (o.group === 'batch' && o.kind === 'CronJob') return 'serverGroups';
  const role = roleOf(o.group, o.kind);
  if (role === 'raw') return 'unclassified';
  return role === 'job' ? 'serverGroups' : `${role}s`;
}

/** What clouddriver's handlers add to a kind's result: its name again, under the field Deck reads. */
const EXTRA_FIELD: Partial<Record<Role, string>> = {
  serverGroup: 'serverGroup',
  loadBalancer: 'loadBalancer',
  instance: 'instanceId',
  securityGroup: 'id',
};

/**
 * One object found by its kind, as clouddriver's Kubernetes search answers it (the cache key's parts
 * with `region` and the full name): `group` and `kubernetesKind` are the kind as the client spelt it,
 * which Deck compares with the kind it asked for.
 */
function kindResult(o: KindObject, spelling: string): Record<string, string> {
  const name = `${spelling} ${o.name}`;
  const extra = EXTRA_FIELD[roleOf(o.group, o.kind)];
  return {
    type: spinnakerKindOf(o),
    provider: CLOUD_PROVIDER,
    group: spelling,
    kubernetesKind: spelling,
    account: o.account,
    namespace: o.namespace,
    region: o.namespace,
    name,
    ...(extra === undefined ? {} : { [extra]: name }),
    ...(o.application === null ? {} : { application: o.application }),
    ...(o.application === null || o.cluster === null ? {} : { cluster: o.cluster }),
  };
}

/**
 * The watched kinds each asked-for kind names: Spinnaker's spelling of the kind (spinnakerKind), its
 * case aside, since clients spell a custom kind's name in lower case (`crontab.stable.example.com`).
 */
function kindsAskedFor(asked: readonly string[], watched: readonly KindKey[]): Map<string, KindKey[]> {
  const found = new Map<string, KindKey[]>();
  for (const spelling of asked) {
    const wanted = spelling.toLowerCase();
    const kinds = watched.filter(
      (k) => spinnakerKind(k.group === '' ? 'v1' : `${k.group}/v1`, k.kind).toLowerCase() === wanted,
    );
    if (kinds.length > 0) found.set(spelling, kinds);
  }
  return found;
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
        const kindTypes = [...types].filter((t) => !isSearchType(t));
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
        // One ordered list, paged across its parts: names, objects by role, then objects by kind.
        const start = (query.page - 1) * query.pageSize;
        const fromNamed = named.slice(start, start + query.pageSize);
        const offset = Math.max(0, start - named.length);
        const found = await deps.model.search(accounts, roles, q, offset, query.pageSize - fromNamed.length);
        const results = [...fromNamed, ...found.objects.map(objectResult)];
        let totalMatches = named.length + found.total;
        const watched = kindTypes.length === 0 ? [] : await deps.model.watchedKinds(accounts);
        for (const [spelling, kinds] of kindsAskedFor(kindTypes, watched)) {
          const skip = Math.max(0, start - totalMatches);
          const byKind = await deps.model.searchKinds(
            accounts,
            kinds,
            q,
            skip,
            query.pageSize - results.length,
          );
          results.push(...byKind.objects.map((o) => kindResult(o, spelling)));
          totalMatches += byKind.total;
        }
        return [{ ...set, totalMatches, results }];
      },
    }),
  ];
}
