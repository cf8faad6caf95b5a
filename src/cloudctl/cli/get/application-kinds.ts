// Applications and their clusters, from GET /applications?expand=true: each application with its
// cluster names per account (the accounts the user may read).
import { z } from 'zod';
import type { KindSpec } from './kind.ts';
import { defineKind } from './show-kind.ts';

const applicationSchema = z.looseObject({
  name: z.string(),
  clusterNames: z.record(z.string(), z.array(z.string())),
});
type Application = z.infer<typeof applicationSchema>;

const listApplications = (client: Parameters<KindSpec<unknown>['list']>[0]) =>
  client.get('/applications', z.array(applicationSchema), { expand: 'true' });

export const applicationsKind = defineKind<Application>({
  name: 'applications',
  singular: 'application',
  scopes: ['account'],
  list: async (client, filter) =>
    (await listApplications(client)).filter(
      (a) => filter.account === undefined || a.clusterNames[filter.account] !== undefined,
    ),
  nameOf: (a) => a.name,
  columns: [
    { header: 'NAME', value: (a) => a.name },
    { header: 'ACCOUNTS', value: (a) => Object.keys(a.clusterNames).sort().join(',') },
    { header: 'CLUSTERS', value: (a) => String(Object.values(a.clusterNames).flat().length) },
    {
      header: 'CLUSTER NAMES',
      wide: true,
      value: (a) => [...new Set(Object.values(a.clusterNames).flat())].sort().join(','),
    },
  ],
});

interface ClusterRow {
  name: string;
  application: string;
  account: string;
}

export const clustersKind = defineKind<ClusterRow>({
  name: 'clusters',
  singular: 'cluster',
  scopes: ['account', 'app'],
  list: async (client, filter) =>
    (await listApplications(client))
      .filter((a) => filter.app === undefined || a.name === filter.app)
      .flatMap((a) =>
        Object.entries(a.clusterNames).flatMap(([account, names]) =>
          names.map((name) => ({ name, application: a.name, account })),
        ),
      )
      .sort((x, y) => x.application.localeCompare(y.application) || x.name.localeCompare(y.name)),
  nameOf: (c) => c.name,
  accountOf: (c) => c.account,
  columns: [
    { header: 'NAME', value: (c) => c.name },
    { header: 'APPLICATION', value: (c) => c.application },
    { header: 'ACCOUNT', value: (c) => c.account },
  ],
});
