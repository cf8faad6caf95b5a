// bench/read-api: the read model at scale. N objects over A applications (Deployments with their
// ReplicaSets and Running pods, Services, NetworkPolicies and annotated ConfigMaps) go from a real
// cluster through a real agent into cloudctl on PostgreSQL; then the heaviest reads are timed over
// HTTP from a client in its own process, each beside the same rows fetched by one bare SQL query
// on the same database (the floor), and the read-model call the route makes, in process.
// Ingest is timed with the read model's index and without it (cloudctl storing bodies only), so
// the index's cost is a ratio from the same run. Usage:
//   node bench/read-api.ts [--objects 50000] [--apps 200] [--requests 300] [--reps 3]
//                          [--database postgres|pglite] [--profile FILE.cpuprofile]
//                          [--client-check] [--round-trip]
// --profile writes a CPU profile of this process (cloudctl) over the HTTP reads, for DevTools or
// any .cpuprofile reader.
// --client-check times each read again from a client in cloudctl's process, then from the separate
// client once more: whether the client's own work is in the figure.
// --round-trip times, from the separate client, requests that do nothing (cloudctl's GET /health,
// and a bare node:http server answering a constant), three passes each: the floor under the tail.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { hashToken } from '../src/cloudctl/index.ts';
import type { ReadModel } from '../src/cloudctl/read-model/index.ts';
import type { ApiClient } from '../test/cluster/api-client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { type PostgresServer, startPostgres } from '../test/support/postgres-server.ts';
import {
  ACCOUNT,
  type BenchControlPlane,
  startAgentProcess,
  startBenchControlPlane,
  waitFor,
} from './lib/bench-system.ts';
import { startHttpTimer } from './lib/http-timer.ts';
import { create, pool } from './lib/populate.ts';
import { postgresCpuSeconds } from './lib/process-stats.ts';
import { rawList } from './lib/raw-list.ts';
import { storedObjects } from './lib/store-probe.ts';
import { fixed, median, percentile, ratio, table } from './lib/summary.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '50000' },
    apps: { type: 'string', default: '200' },
    requests: { type: 'string', default: '300' },
    reps: { type: 'string', default: '3' },
    database: { type: 'string', default: 'postgres' },
    profile: { type: 'string' },
    'client-check': { type: 'boolean', default: false },
    'round-trip': { type: 'boolean', default: false },
  },
});
if (values.database !== 'pglite' && values.database !== 'postgres')
  throw new Error(`--database: pglite or postgres, not ${values.database}`);
const total = Number(values.objects);
const apps = Number(values.apps);
const requests = Number(values.requests);
const reps = Number(values.reps);
const log = (line: string) => console.error(`[read-api] ${line}`);
const NAMESPACES = 20;
const REPLICAS = 3;
/** Per application: a Deployment, its ReplicaSet and pods, two Services and a NetworkPolicy. */
const WORKLOAD_OBJECTS = 1 + 1 + REPLICAS + 2 + 1;
const configMapsPerApp = Math.max(0, Math.floor(total / apps) - WORKLOAD_OBJECTS);
const KINDS = ['configMap', 'deployment', 'replicaSet', 'pod', 'service', 'networkPolicy'];
const LIST_PATHS = [
  '/api/v1/configmaps',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/replicasets',
  '/api/v1/pods',
  '/api/v1/services',
  '/apis/networking.k8s.io/v1/networkpolicies',
];
const SYNC_LIMIT_MS = 15 * 60_000;

const appName = (i: number) => `app-${String(i).padStart(3, '0')}`;
const namespaceOf = (i: number) => `read-${String(i % NAMESPACES).padStart(2, '0')}`;
const moniker = (app: string) => ({
  'moniker.spinnaker.io/application': app,
  'moniker.spinnaker.io/cluster': `deployment ${app}`,
});

// About 1 KB per ConfigMap, as bench/lib/populate.ts writes them.
const PAYLOAD = Array.from({ length: 16 }, (_, i) => `line-${i}: abcdefghijklmnopqrstuvwxyz0123456789`).join(
  '\n',
);

async function populateApplications(client: ApiClient): Promise<void> {
  const started = Date.now();
  await pool(0, NAMESPACES, 8, (i) =>
    create(client, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespaceOf(i) },
    }),
  );
  await pool(0, apps, 16, async (i) => {
    const app = appName(i);
    const ns = namespaceOf(i);
    const labels = { app };
    await create(client, `/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: app, annotations: moniker(app) },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels, annotations: moniker(app) },
          spec: { containers: [{ name: 'app', image: `registry.example/${app}:1.0` }] },
        },
      },
    });
    for (const [name, selector] of [
      [app, labels],
      [`${app}-canary`, { ...labels, track: 'canary' }],
    ] as const) {
      await create(client, `/api/v1/namespaces/${ns}/services`, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, annotations: moniker(app) },
        spec: { selector, ports: [{ port: 80, targetPort: 8080 }] },
      });
    }
    await create(client, `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: app, annotations: moniker(app) },
      spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress'] },
    });
  });
  let done = 0;
  const progress = setInterval(
    () => log(`  populate: ${done}/${apps * configMapsPerApp} ConfigMaps`),
    10_000,
  );
  try {
    await pool(0, apps * configMapsPerApp, 32, async (n) => {
      const i = n % apps;
      const app = appName(i);
      await create(client, `/api/v1/namespaces/${namespaceOf(i)}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${app}-config-${Math.floor(n / apps)}`, annotations: moniker(app) },
        data: { 'settings.yaml': `${PAYLOAD}\nindex: ${n}\n` },
      });
      done++;
    });
  } finally {
    clearInterval(progress);
  }
  log(`populated ${apps} applications in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Every Deployment's pods Running and ready: the objects have settled before anything is timed. */
async function workloadsSettled(client: ApiClient): Promise<boolean> {
  const response = await client.request('GET', '/apis/apps/v1/deployments');
  const items = (response.json as { items?: Array<{ status?: { readyReplicas?: number } }> }).items ?? [];
  const ready = items.filter((d) => d.status?.readyReplicas === REPLICAS).length;
  return ready >= apps;
}

interface Ingest {
  ms: number;
  /** CPU seconds of this process (cloudctl, the probe) and of PostgreSQL while ingesting. */
  cloudctlCpu: number;
  postgresCpu: number;
  controlPlane: BenchControlPlane;
  postgres: PostgresServer | undefined;
  stopAgent(): Promise<void>;
}

/** From the agent's start to cloudctl having committed `expected` objects. */
async function ingest(
  dir: string,
  kubeconfigPath: string,
  expected: number,
  readIndex: boolean,
  userToken: string,
) {
  const postgres = values.database === 'postgres' ? await startPostgres() : undefined;
  const controlPlane = await startBenchControlPlane(dir, postgres?.url, {
    readIndex,
    userTokenHash: hashToken(userToken),
  });
  const stored = storedObjects(controlPlane.plane.store.cache);
  const measured = postgresCpuSeconds(postgres?.url);
  const postgresCpu = () => (postgres === undefined ? Number.NaN : measured());
  const cpuBefore = process.cpuUsage();
  const postgresBefore = postgresCpu();
  const started = performance.now();
  const agent = await startAgentProcess({ dir, controlPlane, kubeconfigPath, kinds: KINDS });
  await waitFor(
    `cloudctl to store ${expected} objects (agent log: ${agent.logFile})`,
    async () => (stored() >= expected ? true : undefined),
    SYNC_LIMIT_MS,
    10,
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const result: Ingest = {
    ms,
    cloudctlCpu: (cpu.user + cpu.system) / 1e6,
    postgresCpu: postgresCpu() - postgresBefore,
    controlPlane,
    postgres,
    stopAgent: () => agent.stop(),
  };
  return result;
}

async function close(run: Ingest): Promise<void> {
  await run.stopAgent();
  await run.controlPlane.close();
  await run.postgres?.stop();
}

/** One read: its HTTP request and the bare SQL that fetches the same rows, for the i-th sample. */
interface Read {
  label: string;
  path(i: number): string;
  floor(i: number): { text: string; values: unknown[] };
  /** The read-model call the route makes, in process: splits the gap between SQL and HTTP. */
  model?(model: ReadModel, i: number): Promise<unknown>;
}

/**
 * What an application's server-group routes ask the read model for (application-routes.ts): its
 * server groups, with every part around them (instances, load balancers, security groups).
 */
const SERVER_GROUP_ROLES = ['serverGroup'] as const;

const COLUMNS =
  'account, api_group, kind, namespace, name, api_version, uid, spinnaker_kind, role, application, cluster, stack, detail, sequence, owner_kind, owner_name, labels, selector, created_time, summary';

function reads(serverGroups: ReadonlyMap<string, { namespace: string; name: string }>): Read[] {
  const app = (i: number) => appName((i * 37) % apps);
  const serverGroupOf = (i: number) => {
    const sg = serverGroups.get(app(i));
    if (sg === undefined) throw new Error(`no server group of ${app(i)} in the index`);
    return sg;
  };
  /**
   * The server groups of the application, the pods they own, and the load balancers and
   * NetworkPolicies of their namespaces: what ServerGroup records show (`instances`,
   * `instanceCounts`, `loadBalancers`, `disabled`, `securityGroups`).
   */
  const surroundings = (where: string) => `
    with sg as (select ${COLUMNS} from read_objects where ${where})
    select * from sg
    union all
    select ${COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')} from read_objects p join sg
      on p.account = sg.account and p.namespace = sg.namespace and p.owner_kind = sg.spinnaker_kind and p.owner_name = sg.name
      where p.role = 'instance'
    union all
    select ${COLUMNS} from read_objects where role in ('loadBalancer', 'securityGroup') and account = $1 and namespace in (select namespace from sg)`;
  return [
    {
      label: 'GET /applications?expand=true',
      path: () => '/applications?expand=true',
      floor: () => ({
        text: `select distinct application, account, case when role in ('serverGroup', 'serverGroupManager') then cluster end as cluster
          from read_objects where application is not null and account = $1`,
        values: [ACCOUNT],
      }),
    },
    {
      label: 'GET /applications/{app}/serverGroups?expand=true',
      path: (i) => `/applications/${app(i)}/serverGroups?expand=true`,
      floor: (i) => ({
        text: surroundings(`account = $1 and application = $2 and role = 'serverGroup'`),
        values: [ACCOUNT, app(i)],
      }),
      model: (model, i) => model.application(app(i), [ACCOUNT], SERVER_GROUP_ROLES),
    },
    {
      label: 'GET /applications/{app}/serverGroups/{account}/{ns}/{name}',
      path: (i) => {
        const sg = serverGroupOf(i);
        return `/applications/${app(i)}/serverGroups/${ACCOUNT}/${sg.namespace}/${encodeURIComponent(`replicaSet ${sg.name}`)}`;
      },
      floor: (i) => {
        const sg = serverGroupOf(i);
        return {
          text: surroundings(
            `account = $1 and api_group = 'apps' and kind = 'ReplicaSet' and namespace = $2 and name = $3`,
          ),
          values: [ACCOUNT, sg.namespace, sg.name],
        };
      },
      model: (model, i) => model.application(app(i), [ACCOUNT], SERVER_GROUP_ROLES),
    },
    {
      label: 'GET /search?q=app-0N&type=serverGroups&type=instances',
      path: (i) => `/search?q=app-0${i % 10}&type=serverGroups&type=instances`,
      floor: (i) => ({
        text: `select ${COLUMNS} from read_objects where account = $1 and role in ('serverGroup', 'instance')
          and (spinnaker_kind || ' ' || name ilike $2 or application ilike $2)
          order by account, namespace, spinnaker_kind, name limit 10000`,
        values: [ACCOUNT, `%app-0${i % 10}%`],
      }),
    },
  ];
}

interface Timing {
  p50: number;
  p99: number;
}

const WARM_UP = 20;
const timing = (ms: readonly number[]): Timing => ({ p50: percentile(ms, 50), p99: percentile(ms, 99) });

async function time(samples: number, run: (i: number) => Promise<void>): Promise<Timing> {
  const warmUp = Math.min(WARM_UP, samples);
  for (let i = 0; i < warmUp; i++) await run(i);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await run(i);
    ms.push(performance.now() - started);
  }
  return timing(ms);
}

async function timeReads(run: Ingest, userToken: string) {
  const base = `http://127.0.0.1:${run.controlPlane.plane.httpPort}`;
  const headers = { authorization: `Bearer ${userToken}` };
  const serverGroups = new Map(
    (await run.controlPlane.plane.store.readModel.byRole([ACCOUNT], 'serverGroup')).map((sg) => [
      sg.application ?? '',
      { namespace: sg.namespace, name: sg.name },
    ]),
  );
  // The floor runs on its own connection to the same database (PGlite allows one process only).
  const sqlPool =
    run.postgres === undefined ? undefined : new pg.Pool({ connectionString: run.postgres.url, max: 1 });
  // The HTTP client runs in its own process: the figure is cloudctl's answer, not also this
  // process's client work on the same cores.
  const timer = startHttpTimer();
  const paths = (read: Read, n: number) => Array.from({ length: n }, (_, i) => read.path(i));
  const rows: string[][] = [];
  const clientRows: string[][] = [];
  try {
    for (const read of reads(serverGroups)) {
      const separate = async () =>
        timing(
          await timer.time({
            base,
            headers,
            warmUp: paths(read, Math.min(WARM_UP, requests)),
            samples: paths(read, requests),
          }),
        );
      const http = await separate();
      if (values['client-check']) {
        const inProcess = await time(requests, async (i) => {
          const response = await fetch(`${base}${read.path(i)}`, { headers });
          const body = await response.text();
          if (response.status !== 200)
            throw new Error(`GET ${read.path(i)}: HTTP ${response.status}: ${body}`);
        });
        const again = await separate();
        clientRows.push([
          read.label,
          ...[http, inProcess, again].map((t) => `${fixed(t.p50)} / ${fixed(t.p99)}`),
        ]);
      }
      const floor =
        sqlPool === undefined
          ? undefined
          : await time(requests, async (i) => {
              const { text, values: params } = read.floor(i);
              await sqlPool.query(text, params);
            });
      const model = read.model;
      const inProcess =
        model === undefined
          ? undefined
          : await time(requests, async (i) => {
              await model(run.controlPlane.plane.store.readModel, i);
            });
      log(`${read.label}: p50 ${http.p50.toFixed(1)} ms, p99 ${http.p99.toFixed(1)} ms`);
      rows.push([
        read.label,
        `${fixed(http.p50)} / ${fixed(http.p99)}`,
        inProcess === undefined ? '—' : `${fixed(inProcess.p50)} / ${fixed(inProcess.p99)}`,
        floor === undefined ? '—' : `${fixed(floor.p50)} / ${fixed(floor.p99)}`,
        floor === undefined ? '—' : ratio(http.p99, floor.p99),
      ]);
    }
  } finally {
    await timer.close();
    await sqlPool?.end();
  }
  return { rows, clientRows };
}

const ROUND_TRIP_PASSES = 3;

/**
 * --round-trip: requests that do nothing, timed by the same separate client: cloudctl's `GET /health`
 * (no database, no token) and a bare node:http server in this process answering a constant, passes
 * interleaved so a busy spell of the machine falls on both.
 */
async function timeRoundTrip(base: string): Promise<string[][]> {
  const bare = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const address = bare.address();
  if (address === null || typeof address === 'string') throw new Error('the bare server has no port');
  const targets = [
    { label: 'GET /health (cloudctl: no database, no token)', base, path: '/health' },
    { label: 'bare node:http server answering {}', base: `http://127.0.0.1:${address.port}`, path: '/' },
  ];
  const passes = targets.map((): Timing[] => []);
  const timer = startHttpTimer();
  try {
    for (let pass = 0; pass < ROUND_TRIP_PASSES; pass++) {
      for (const [i, target] of targets.entries()) {
        const ms = await timer.time({
          base: target.base,
          headers: {},
          warmUp: Array.from({ length: Math.min(WARM_UP, requests) }, () => target.path),
          samples: Array.from({ length: requests }, () => target.path),
        });
        passes[i]?.push(timing(ms));
      }
    }
  } finally {
    await timer.close();
    await new Promise((resolve) => bare.close(resolve));
  }
  return targets.map((target, i) => [
    target.label,
    ...(passes[i] ?? []).map((t) => `${fixed(t.p50, 2)} / ${fixed(t.p99, 2)}`),
  ]);
}

function ingestRows(withIndex: readonly Ingest[], withoutIndex: readonly Ingest[]): string[][] {
  const figures: Array<[string, (run: Ingest) => number]> = [
    ['agent start → all committed, s (target ≤ 1.20×)', (run) => run.ms / 1000],
    ['cloudctl CPU, s', (run) => run.cloudctlCpu],
    ['PostgreSQL CPU, s', (run) => run.postgresCpu],
  ];
  return figures.map(([label, pick]) => {
    const ours = median(withIndex.map(pick));
    const bare = median(withoutIndex.map(pick));
    return [label, fixed(ours, 2), fixed(bare, 2), ratio(ours, bare)];
  });
}

const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-read-'));
const userToken = randomBytes(24).toString('hex');
const cluster = await startCluster({ nodes: 10, log });
try {
  log(`populating ${apps} applications, ${configMapsPerApp} ConfigMaps each`);
  await populateApplications(cluster.client);
  await waitFor(
    'every Deployment ready',
    async () => ((await workloadsSettled(cluster.client)) ? true : undefined),
    10 * 60_000,
    1000,
  );
  const expected = (await rawList(cluster.client, LIST_PATHS)).objects;
  log(`${expected} objects listed`);
  const withIndex: Ingest[] = [];
  const withoutIndex: Ingest[] = [];
  let last: Ingest | undefined;
  for (let rep = 1; rep <= reps; rep++) {
    // Alternating who goes first spreads a slow spell of this shared machine over both sides; the
    // last rep ends with the index, whose store the reads then use.
    const order = rep % 2 === 0 && rep < reps ? [true, false] : [false, true];
    for (const readIndex of order) {
      if (last !== undefined) await close(last);
      last = await ingest(dir, cluster.kubeconfigPath, expected, readIndex, userToken);
      (readIndex ? withIndex : withoutIndex).push(last);
      log(`rep ${rep}: ingest ${readIndex ? 'with' : 'without'} the index ${last.ms.toFixed(0)} ms`);
    }
  }
  if (last === undefined) throw new Error('--reps must be at least 1');
  try {
    const session = values.profile === undefined ? undefined : new Session();
    session?.connect();
    await session?.post('Profiler.enable');
    await session?.post('Profiler.start');
    const { rows: readRows, clientRows } = await timeReads(last, userToken);
    if (session !== undefined && values.profile !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(values.profile, JSON.stringify(profile));
      log(`saved ${values.profile}`);
    }
    const roundTripRows = values['round-trip']
      ? await timeRoundTrip(`http://127.0.0.1:${last.controlPlane.plane.httpPort}`)
      : [];
    console.log(
      [
        `### ${expected} objects over ${apps} applications, cloudctl on ${values.database}`,
        '',
        table(
          [`ingest, median of ${reps}`, 'with the index', 'without', 'with/without'],
          ingestRows(withIndex, withoutIndex),
        ),
        '',
        table(
          [
            `read (${requests} requests each)`,
            'HTTP p50 / p99, ms',
            'read-model call p50 / p99, ms',
            'bare SQL p50 / p99, ms',
            'p99 HTTP/SQL (target ≤ 3)',
          ],
          readRows,
        ),
        ...(clientRows.length === 0
          ? []
          : [
              '',
              table(
                [
                  `--client-check: HTTP p50 / p99, ms (${requests} requests each)`,
                  'separate client',
                  "client in cloudctl's process",
                  'separate client again',
                ],
                clientRows,
              ),
            ]),
        ...(roundTripRows.length === 0
          ? []
          : [
              '',
              table(
                [
                  `--round-trip: p50 / p99, ms (${requests} requests each)`,
                  ...Array.from({ length: ROUND_TRIP_PASSES }, (_, i) => `pass ${i + 1}`),
                ],
                roundTripRows,
              ),
            ]),
      ].join('\n'),
    );
  } finally {
    await close(last);
  }
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
