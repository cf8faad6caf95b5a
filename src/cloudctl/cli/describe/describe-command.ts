// `cloudctl describe KIND NAME --account A --namespace N`: one object as kubectl describe shows one,
// from GET /manifests/{account}/{namespace}/{kind name} (its status, artifacts and Events) and, for an
// object of an application's cluster, the versions (server groups) of that cluster.
import { z } from 'zod';
import { EXIT, UsageError } from '../../../lib/command-line.ts';
import { type ApiClient, CONNECTION_HELP, CONNECTION_OPTIONS, withClient } from '../client/index.ts';
import { type CommandSpec, columns } from '../command-line/index.ts';
import { ageOf, TablePrinter } from '../get/index.ts';

const conditionSchema = z.looseObject({ state: z.boolean(), message: z.string().nullable() });
const manifestSchema = z.looseObject({
  account: z.string(),
  name: z.string(),
  location: z.string(),
  manifest: z.record(z.string(), z.unknown()),
  status: z.looseObject({
    stable: conditionSchema,
    paused: conditionSchema,
    available: conditionSchema,
    failed: conditionSchema,
  }),
  moniker: z.looseObject({ app: z.string(), cluster: z.string() }),
  artifacts: z.array(z.looseObject({ type: z.string(), name: z.string(), reference: z.string() })),
  events: z.array(z.record(z.string(), z.unknown())),
  warnings: z.array(z.looseObject({ type: z.string(), message: z.string() })),
});
type Manifest = z.infer<typeof manifestSchema>;

const metadataSchema = z.looseObject({
  creationTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
});
const eventSchema = z.looseObject({
  type: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  count: z.number().optional(),
  lastTimestamp: z.string().nullable().optional(),
  eventTime: z.string().nullable().optional(),
  source: z.looseObject({ component: z.string().optional() }).optional(),
});
type KubeEvent = z.infer<typeof eventSchema>;

const serverGroupSchema = z.looseObject({
  displayName: z.string(),
  kind: z.string(),
  account: z.string(),
  namespace: z.string(),
  cluster: z.string(),
  createdTime: z.number().nullable(),
  disabled: z.boolean(),
  capacity: z.looseObject({ desired: z.int() }),
  instanceCounts: z.looseObject({ total: z.int(), up: z.int() }),
});
type ServerGroup = z.infer<typeof serverGroupSchema>;

/** KIND NAME, or KIND/NAME in one word, as the manifests route's "<kind> <name>". */
export function manifestName(positionals: readonly string[]): string {
  const [first = '', second] = positionals;
  if (second !== undefined) return `${first} ${second}`;
  const slash = first.indexOf('/');
  if (slash <= 0 || slash === first.length - 1)
    throw new UsageError(`'${first}': give KIND NAME or KIND/NAME`);
  return `${first.slice(0, slash)} ${first.slice(slash + 1)}`;
}

const yesNo = (c: { state: boolean; message: string | null }) =>
  `${c.state ? 'True' : 'False'}${c.message === null || c.message === '' ? '' : `  (${c.message})`}`;

function eventLines(events: readonly KubeEvent[], now: number): string[] {
  if (events.length === 0) return ['Events:       <none>'];
  const printer = new TablePrinter<KubeEvent>(
    [
      { header: 'TYPE', value: (e) => e.type ?? '' },
      { header: 'REASON', value: (e) => e.reason ?? '' },
      {
        header: 'AGE',
        value: (e, at) => {
          const time = e.lastTimestamp ?? e.eventTime;
          return time === null || time === undefined ? '<unknown>' : ageOf(Date.parse(time), at);
        },
      },
      { header: 'FROM', value: (e) => e.source?.component ?? '' },
      { header: 'MESSAGE', value: (e) => e.message ?? '' },
    ],
    false,
  );
  return ['Events:', ...printer.table(events, now).map((l) => `  ${l}`)];
}

function versionLines(groups: readonly ServerGroup[], now: number): string[] {
  if (groups.length === 0) return [];
  const printer = new TablePrinter<ServerGroup>(
    [
      { header: 'NAME', value: (g) => `${g.kind}/${g.displayName}` },
      { header: 'DESIRED', value: (g) => String(g.capacity.desired) },
      { header: 'READY', value: (g) => `${g.instanceCounts.up}/${g.instanceCounts.total}` },
      { header: 'TRAFFIC', value: (g) => (g.disabled ? 'no' : 'yes') },
      { header: 'AGE', value: (g, at) => ageOf(g.createdTime, at) },
    ],
    false,
  );
  return ['Versions:', ...printer.table(groups, now).map((l) => `  ${l}`)];
}

async function clusterVersions(client: ApiClient, m: Manifest): Promise<ServerGroup[]> {
  if (m.moniker.app === '' || m.moniker.cluster === '') return [];
  const groups = await client.get(
    `/applications/${encodeURIComponent(m.moniker.app)}/serverGroups`,
    z.array(serverGroupSchema),
  );
  return groups
    .filter((g) => g.account === m.account && g.namespace === m.location && g.cluster === m.moniker.cluster)
    .sort((a, b) => (a.createdTime ?? 0) - (b.createdTime ?? 0));
}

export function describeLines(m: Manifest, groups: readonly ServerGroup[], now: number): string[] {
  const metadata = metadataSchema.safeParse(m.manifest.metadata);
  const created = metadata.success ? metadata.data.creationTimestamp : undefined;
  const labels = metadata.success ? Object.entries(metadata.data.labels ?? {}) : [];
  const [kind = '', ...name] = m.name.split(' ');
  const events = m.events.flatMap((e) => {
    const parsed = eventSchema.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
  return [
    ...columns(
      [
        ['Name:', name.join(' ')],
        ['Kind:', kind],
        ['Account:', m.account],
        ['Namespace:', m.location === '' ? '<cluster-scoped>' : m.location],
        ['Application:', m.moniker.app === '' ? '<none>' : m.moniker.app],
        ['Cluster:', m.moniker.cluster === '' ? '<none>' : m.moniker.cluster],
        [
          'Created:',
          created === undefined ? '<unknown>' : `${created} (${ageOf(Date.parse(created), now)} ago)`,
        ],
        ['Labels:', labels.length === 0 ? '<none>' : labels.map(([k, v]) => `${k}=${v}`).join('\n')],
      ],
      0,
    ),
    'Status:',
    ...columns(
      [
        ['Stable:', yesNo(m.status.stable)],
        ['Available:', yesNo(m.status.available)],
        ['Paused:', yesNo(m.status.paused)],
        ['Failed:', yesNo(m.status.failed)],
      ],
      2,
    ),
    ...(m.warnings.length === 0 ? [] : ['Warnings:', ...m.warnings.map((w) => `  ${w.type}: ${w.message}`)]),
    m.artifacts.length === 0 ? 'Artifacts:    <none>' : 'Artifacts:',
    ...columns(
      m.artifacts.map((a): [string, string] => [a.type, a.reference]),
      2,
    ),
    ...versionLines(groups, now),
    ...eventLines(events, now),
  ];
}

export const describeCommand: CommandSpec = {
  name: 'describe',
  synopsis: 'KIND NAME --account ACCOUNT --namespace NAMESPACE [options]',
  summary: "Show one object: its status, artifacts, its cluster's versions and its Events.",
  details: [
    'KIND as Kubernetes or Spinnaker spells it (deployment, Deployment, replicaSet, pod, ...); KIND/NAME',
    'in one word works too. A cluster-scoped object takes no --namespace.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    { name: 'account', value: 'ACCOUNT', description: 'the account whose cluster holds it (required)' },
    { name: 'namespace', short: 'n', value: 'NAMESPACE', description: 'its namespace' },
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 1, max: 2 },
  run: (args, io) => {
    const name = manifestName(args.positionals);
    const account = args.string('account');
    if (account === undefined) throw new UsageError("'describe' needs --account ACCOUNT");
    const namespace = args.string('namespace');
    return withClient(args, io, async (client) => {
      const path = `/manifests/${encodeURIComponent(account)}/${namespace === undefined ? '' : `${encodeURIComponent(namespace)}/`}${encodeURIComponent(name)}`;
      const manifest = await client.get(path, manifestSchema, { includeEvents: 'true' });
      const groups = await clusterVersions(client, manifest);
      for (const line of describeLines(manifest, groups, Date.now())) io.out(line);
      return EXIT.ok;
    });
  },
};
