// bench/many-accounts: agents serving many accounts, as the product we replace published figures
// for (100 accounts caching ten kinds across 50 namespaces, one deployment and one deletion per
// account per minute: 4.5–7.5 GB, 110–1000 mCPU), and as a large install runs its control plane
// (issue 40: 1 000 accounts over 10 agents, cloudctl on PostgreSQL). Every account is the same real
// cluster through the same kubeconfig. Beside it, in the same run and watching at the same time, one
// Go process with as many sets of client-go shared informers (one clientset and factory per
// account) as the largest agent has accounts. Reports the initial sync (until cloudctl has stored
// every account's objects; until every informer has synced), RSS and CPU from /proc over a load
// phase of deploy and delete operations, the operations' outcomes, and the read API's latency
// under that load. The agents hold no objects: they stream them to cloudctl, whose store holds
// them, while the informers hold them in their caches; so cloudctl's RSS and CPU (and PostgreSQL's,
// with --database postgres) are reported beside the agents', with their sum. cloudctl runs as its
// own process (`cloudctl serve`, its embedded database inside it, or PostgreSQL as a process of its
// own) so that /proc gives its cost alone, not the load generator's; the benchmark reaches it as a
// client does, through its HTTP API and /metrics, and sends the load as Spinnaker does:
// deployManifest and deleteManifest tasks, followed until they end. Usage:
//   node bench/many-accounts.ts [--accounts 100] [--namespaces 50] [--minutes 10] [--agents 1]
//                               [--database pglite|postgres] [--peer-accounts N] [--read-rate 5]
//                               [--sample-seconds 5] [--nodes 10] [--task-poll-ms 100] [--profile DIR]
//                               [--load-namespace shared|own]
// --agents: the accounts dealt round-robin over that many agent processes.
// --peer-accounts: informer sets in the Go peer (default: the largest agent's share, so each agent
//   has a peer measured for as many accounts; past it the peer's figures are scaled, and say so).
// --read-rate: GET /applications/{app}/serverGroups?expand=true a second during the load, each for
//   the application of an account whose deployment is up (the deploys carry a moniker).
// --task-poll-ms: how often each task is followed (GET /task/{id}); its latency is seen that late.
// --load-namespace own: each account is scoped (`namespaces`) to the populated namespaces and one of
//   its own, `load-<account>`, where its deploys go, so a deploy is seen by its account alone, as when
//   the accounts are clusters of their own; the peer's informer sets are scoped the same way. With
//   `shared` (the default) every account watches the whole cluster and sees every account's deploys:
//   at 1 000 accounts one deploy is a thousand events for each of its objects.
// --profile saves, once synced and after the load phase, the agents' heap profiles (`go tool pprof
// -top`), their /proc smaps_rollup and /metrics, cloudctl's smaps_rollup and /metrics, and
// what cloudctl's live heap holds by allocation site (V8's sampling heap profiler, from its start).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { ApiClient } from '../test/cluster/api-client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { type PostgresServer, startPostgres } from '../test/support/postgres-server.ts';
import { type AgentFleet, spreadAccounts, startAgentFleet } from './lib/agent-fleet.ts';
import { waitFor, within } from './lib/bench-system.ts';
import { type CloudctlProcess, startCloudctlProcess } from './lib/cloudctl-process.ts';
import { runTask } from './lib/cloudctl-tasks.ts';
import { create, pool } from './lib/populate.ts';
import {
  type ProcessStats,
  postgresPid,
  processStats,
  processTreeCpuSeconds,
  processTreePssBytes,
  resetPeakRss,
  socketCount,
} from './lib/process-stats.ts';
import { rawList } from './lib/raw-list.ts';
import { type ReadLoadResult, startReadLoad } from './lib/read-load.ts';
import { fixed, mib, percentile, ratio, table } from './lib/summary.ts';
import {
  AGENT_KINDS,
  deployment,
  objectsPerNamespace,
  PEER_KINDS,
  PER_NAMESPACE,
  populateWorkloads,
  WORKLOAD_PATHS,
} from './lib/workloads.ts';
import { buildInformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '100' },
    namespaces: { type: 'string', default: '50' },
    minutes: { type: 'string', default: '10' },
    agents: { type: 'string', default: '1' },
    database: { type: 'string', default: 'pglite' },
    'peer-accounts': { type: 'string' },
    'load-namespace': { type: 'string', default: 'shared' },
    'read-rate': { type: 'string', default: '5' },
    'sample-seconds': { type: 'string', default: '5' },
    nodes: { type: 'string', default: '10' },
    'task-poll-ms': { type: 'string', default: '100' },
    profile: { type: 'string' },
  },
});
if (values.database !== 'pglite' && values.database !== 'postgres')
  throw new Error(`--database: pglite or postgres, not ${values.database}`);
const ON_POSTGRES = values.database === 'postgres';
if (values['load-namespace'] !== 'shared' && values['load-namespace'] !== 'own')
  throw new Error(`--load-namespace: shared or own, not ${values['load-namespace']}`);
/**
 * Each account scoped to the populated namespaces and one of its own, where its load goes: a deploy
 * is seen by its own account only, as with accounts that are clusters of their own. (Shared, every
 * account watches every namespace of the one cluster and sees every account's deploys.)
 */
const OWN_LOAD = values['load-namespace'] === 'own';
const ACCOUNTS = Number(values.accounts);
const NAMESPACES = Number(values.namespaces);
const MINUTES = Number(values.minutes);
const AGENTS = Number(values.agents);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const NODES = Number(values.nodes);
const TASK_POLL_MS = Number(values['task-poll-ms']);
const READ_RATE = Number(values['read-rate']);
const log = (line: string) => console.error(`[many-accounts] ${line}`);
const SYNC_LIMIT_MS = 30 * 60_000;
/** How long some accounts may stay failed before the sync is given up: the agent's longest retry, and a minute. */
const DARK_LIMIT_MS = 6 * 60_000;
const MINUTE_MS = 60_000;
/** How long after its deployment each account deletes it. */
const DELETE_AFTER_MS = 30_000;
/** The published figures of the product we replace, for this load. */
const PUBLISHED = { memory: '4.5–7.5 GB', mcpu: '110–1000 mCPU', lowBytes: 4.5e9 };
/** Issue 40's bounds. */
const TARGET = {
  cloudctlRssBytes: 512 * 1024 * 1024,
  agentOfPeer: 0.25,
  bothOfPeer: 1.0,
  readP99Ms: 50,
};

const pad = (i: number) => String(i).padStart(3, '0');
const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `acct-${pad(i)}`);
const shares = spreadAccounts(accounts, AGENTS);
const largestShare = Math.max(...shares.map((s) => s.length));
const PEER_ACCOUNTS = Number(values['peer-accounts'] ?? largestShare);
/** The peer's figures times this are what informer sets for every account would cost. */
const PEER_SCALE = ACCOUNTS / PEER_ACCOUNTS;
const namespaceName = (i: number) => `team-${pad(i)}`;
const namespaces = Array.from({ length: NAMESPACES }, (_, i) => namespaceName(i));
/** With --load-namespace own: the account's own namespace (the peer's format below names the same). */
const loadNamespaceOf = (account: string) => `load-${account}`;
const PEER_LOAD_NAMESPACE = 'load-acct-%03d';
/** The application an account's deploys carry in their moniker. */
const applicationOf = (account: string) => account.replaceAll('-', '');

async function unsettledPods(client: ApiClient): Promise<number> {
  const selector = encodeURIComponent('status.phase!=Running,status.phase!=Succeeded');
  const response = await client.request('GET', `/api/v1/pods?fieldSelector=${selector}`);
  if (response.status !== 200) throw new Error(`list pods: HTTP ${response.status}`);
  return ((response.json as { items?: unknown[] }).items ?? []).length;
}

/** The processes measured, in the table's order: the agents added up, cloudctl, PostgreSQL, the peer. */
type Side = 'agents' | 'cloudctl' | 'postgres' | 'peer';
type PerSide<T> = Record<Side, T>;
const perSide = <T>(pick: (side: Side) => T): PerSide<T> => ({
  agents: pick('agents'),
  cloudctl: pick('cloudctl'),
  postgres: pick('postgres'),
  peer: pick('peer'),
});

interface Sample {
  atMs: number;
  stats: PerSide<ProcessStats>;
  perAgent: ProcessStats[];
  sockets: PerSide<number>;
}

/** Outcomes and latencies of one operation type. */
class OperationTally {
  readonly ms: number[] = [];
  failed = 0;
  #errors = 0;

  async time(run: () => Promise<{ outcome: string; error: string | null }>, what: string): Promise<boolean> {
    const started = performance.now();
    try {
      const outcome = await run();
      if (outcome.outcome === 'succeeded') {
        this.ms.push(performance.now() - started);
        return true;
      }
      this.#fail(what, outcome.error ?? outcome.outcome);
    } catch (error) {
      this.#fail(what, error instanceof Error ? error.message : String(error));
    }
    return false;
  }

  #fail(what: string, cause: string) {
    this.failed++;
    // The first few say why; a flood would hide the table.
    if (++this.#errors <= 5) log(`${what} failed: ${cause}`);
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mb = (bytes: number) => fixed(mib(bytes), 1);

/** Events cloudctl has stored (upserts and deletions, every account): cheap to read from /metrics. */
const INGESTED = 'cloudctl_cache_events_ingested_total';
/** HTTP requests cloudctl answered: the tasks sent and every poll of them. */
const HTTP_REQUESTS = 'cloudctl_http_requests_total';
const introspectionSchema = z.array(z.object({ account: z.string(), totalObjects: z.number() }));
const introspectionWithKindsSchema = z.array(
  z.object({ account: z.string(), kinds: z.array(z.object({ kind: z.string(), count: z.number() })) }),
);

/** Objects cloudctl holds for the benchmark's accounts, counted by its database. */
async function heldBy(cloudctl: CloudctlProcess): Promise<number> {
  const names = new Set(accounts);
  const records = await cloudctl.request('GET', '/cache/introspection', introspectionSchema);
  return records.filter((r) => names.has(r.account)).reduce((total, r) => total + r.totalObjects, 0);
}

/**
 * Where cloudctl's store and the cluster differ, kind by kind: what one account should hold (the
 * cluster's list) against what the accounts hold (fewest and most), for the kinds that differ.
 */
async function heldAgainstListed(cloudctl: CloudctlProcess, client: ApiClient): Promise<string> {
  const listed = await rawList(client, WORKLOAD_PATHS);
  const records = (
    await cloudctl.request('GET', '/cache/introspection', introspectionWithKindsSchema)
  ).filter((r) => accounts.includes(r.account));
  const differing = WORKLOAD_PATHS.flatMap((path, i) => {
    // WORKLOAD_PATHS and AGENT_KINDS name the same kinds in the same order.
    const kind = AGENT_KINDS[i]?.toLowerCase();
    const resource = path.split('/').at(-1) ?? path;
    const held = records.map((r) => r.kinds.find((k) => k.kind.toLowerCase() === kind)?.count ?? 0);
    const want = listed.perPath[i] ?? 0;
    const off = held.filter((h) => h !== want).length;
    return off === 0
      ? []
      : [
          `${resource}: listed ${want}, held ${Math.min(...held)}–${Math.max(...held)} (${off} of ${held.length} accounts differ)`,
        ];
  });
  return differing.length === 0 ? 'nothing now (it converged after the wait)' : differing.join('; ');
}

/**
 * A probe that answers once cloudctl holds `expected` objects. The events counter says when that can
 * first be true (every object stored came in an event of its own); only then is the database counted,
 * at most once a second, since a count over every row competes with the ingest it waits for.
 */
function storedAll(cloudctl: CloudctlProcess, expected: number, dark: () => string[]) {
  let countedAt = Number.NEGATIVE_INFINITY;
  let probes = 0;
  let darkSince: number | undefined;
  return async (): Promise<true | undefined> => {
    // The agent checks a failed account again, at most 5 min apart: dark for longer, it will not sync.
    if (++probes % 20 === 0) {
      const now = dark();
      darkSince = now.length === 0 ? undefined : (darkSince ?? performance.now());
      if (darkSince !== undefined && performance.now() - darkSince > DARK_LIMIT_MS)
        throw new Error(`accounts that will not sync:\n${now.join('\n')}`);
    }
    if ((await cloudctl.metricSum(INGESTED)) < expected) return undefined;
    if (performance.now() - countedAt < 1000) return undefined;
    countedAt = performance.now();
    return (await heldBy(cloudctl)) >= expected ? true : undefined;
  };
}

/** The figures of the first table, each per process (the agents added up). */
interface Figures {
  syncMs: { ours: number; peer: number };
  cpuUntilSynced: PerSide<number>;
  rssAtSync: PerSide<number>;
  /** VmHWM from each process's start; cloudctl's from the agents' start; PostgreSQL's sampled. */
  peak: PerSide<number>;
  /** Each agent's peak, in the fleet's order. */
  agentPeaks: number[];
  /** cloudctl before the agents started: its start-up's VmHWM and its RSS then. */
  cloudctlStart: ProcessStats;
  load: readonly Sample[];
  syncSamples: readonly Sample[];
  loadMcpu: PerSide<number>;
  heapAfterLoad: PerSide<number>;
  /** cloudctl's live heap once synced (sampled since its start, after a collection), with --profile. */
  liveHeapAtSync: number;
  objects: number;
}

/** Ours in all: the agents, cloudctl and PostgreSQL (0 on the embedded database). */
const ours = (figures: PerSide<number>) => figures.agents + figures.cloudctl + figures.postgres;

/**
 * Who holds the objects, beside what each process costs. "ours in all" adds the columns, except
 * where a maximum over samples is taken: there it is the highest sum in one sample (their peaks
 * need not coincide); the peak row adds the VmHWM, an upper bound. The peer's column is what it
 * measured for its informer sets; the ratios are against it scaled to every account.
 */
function costTable(f: Figures): string {
  const scaled = (n: number) => n * PEER_SCALE;
  const row = (label: string, figures: PerSide<number>, all: number, unit: (n: number) => string) => [
    label,
    unit(figures.agents),
    unit(figures.cloudctl),
    ...(ON_POSTGRES ? [unit(figures.postgres)] : []),
    unit(all),
    unit(figures.peer),
    ...(PEER_SCALE === 1 ? [] : [unit(scaled(figures.peer))]),
    ratio(figures.agents, scaled(figures.peer)),
    ratio(all, scaled(figures.peer)),
  ];
  const simple = (label: string, figures: PerSide<number>, unit: (n: number) => string) =>
    row(label, figures, ours(figures), unit);
  /** The highest of each process over the samples, and the highest sum in one sample. */
  const maxOf = (
    label: string,
    samples: readonly Sample[],
    pick: (s: Sample, side: Side) => number,
    unit: (n: number) => string,
  ) =>
    row(
      label,
      perSide((side) => Math.max(...samples.map((s) => pick(s, side)))),
      Math.max(...samples.map((s) => pick(s, 'agents') + pick(s, 'cloudctl') + pick(s, 'postgres'))),
      unit,
    );
  const count = (n: number) => fixed(n, 0);
  const none = Number.NaN;
  return table(
    [
      'figure',
      `orch-agent, ${ACCOUNTS} accounts${AGENTS === 1 ? '' : ` over ${AGENTS} agents (added)`}`,
      'cloudctl',
      ...(ON_POSTGRES ? ['PostgreSQL (Pss, every backend)'] : []),
      'ours in all',
      `client-go, ${PEER_ACCOUNTS} informer sets`,
      ...(PEER_SCALE === 1 ? [] : [`the same × ${fixed(PEER_SCALE, 2)} (${ACCOUNTS} sets)`]),
      'agents/peer',
      'ours/peer',
    ],
    [
      [
        'holds the objects',
        'none',
        ON_POSTGRES ? 'no' : 'its store',
        ...(ON_POSTGRES ? ['its tables'] : []),
        'the store',
        'its cache',
        ...(PEER_SCALE === 1 ? [] : ['']),
        '',
        '',
      ],
      row(
        'initial sync, s',
        { agents: none, cloudctl: none, postgres: none, peer: f.syncMs.peer / PEER_SCALE },
        f.syncMs.ours,
        (ms) => fixed(ms / 1000, 1),
      ),
      simple('CPU until synced, s', f.cpuUntilSynced, (n) => fixed(n, 1)),
      simple('RSS at sync, MiB', f.rssAtSync, mb),
      simple('peak RSS (VmHWM, from the agents’ start), MiB', f.peak, mb),
      simple(
        'RSS during load, mean, MiB',
        perSide((side) => mean(f.load.map((s) => s.stats[side].rssBytes))),
        mb,
      ),
      maxOf('RSS during load, max, MiB', f.load, (s, side) => s.stats[side].rssBytes, mb),
      simple('CPU during load, mCPU', f.loadMcpu, (n) => fixed(n, 0)),
      simple('heap in use after load, MiB', f.heapAfterLoad, mb),
      maxOf('open sockets during sync, max', f.syncSamples, (s, side) => s.sockets[side], count),
      maxOf('open sockets during load, max', f.load, (s, side) => s.sockets[side], count),
    ],
  );
}

/** Each agent against informer sets for as many accounts (the peer's per-set cost times its share). */
function agentTable(f: Figures): string {
  const perSet = f.peak.peer / PEER_ACCOUNTS;
  return table(
    [
      'agent',
      'accounts',
      'peak RSS, MiB',
      'RSS during load, mean, MiB',
      'informer sets for its accounts, MiB',
      'ratio',
    ],
    shares.map((share, i) => [
      i === 0 ? 'bench-agent' : `bench-agent-${i}`,
      String(share.length),
      mb(f.agentPeaks[i] ?? Number.NaN),
      mb(mean(f.load.map((s) => s.perAgent[i]?.rssBytes ?? Number.NaN))),
      mb(perSet * share.length),
      ratio(f.agentPeaks[i] ?? Number.NaN, perSet * share.length),
    ]),
  );
}

function targetTable(
  f: Figures,
  tasks: { failed: number; completed: number; expected: number },
  reads: ReadLoadResult,
): string {
  const agentRatios = shares.map(
    (share, i) => (f.agentPeaks[i] ?? 0) / ((f.peak.peer / PEER_ACCOUNTS) * share.length),
  );
  const worstAgent = Math.max(...agentRatios);
  const both = f.peak.agents + f.peak.cloudctl;
  const peerAll = f.peak.peer * PEER_SCALE;
  const per100k = (bytes: number) => `${mb((bytes / f.objects) * 100_000)} MiB per 100k objects`;
  const readP99 = percentile(reads.ms, 99);
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  return table(
    ['target', 'figure', 'result'],
    [
      [
        'every account synced, no task lost or failed by the load',
        `${f.objects} objects stored; ${tasks.completed} of ${tasks.expected} tasks succeeded, ${tasks.failed} failed`,
        met(tasks.failed === 0 && tasks.completed === tasks.expected),
      ],
      [
        `each agent ≤ ${TARGET.agentOfPeer}× the informer sets for its accounts (peak)`,
        `worst ${fixed(worstAgent, 2)}× (${AGENTS} agent${AGENTS === 1 ? '' : 's'})`,
        met(worstAgent <= TARGET.agentOfPeer),
      ],
      [
        'cloudctl RSS ≤ 512 MiB (peak, on PostgreSQL)',
        `${mb(f.peak.cloudctl)} MiB; ${per100k(f.peak.cloudctl)}`,
        ON_POSTGRES ? met(f.peak.cloudctl <= TARGET.cloudctlRssBytes) : '— (on PGlite: its store is in it)',
      ],
      [
        "cloudctl's heap flat in the object count",
        `after the load ${mb(f.heapAfterLoad.cloudctl)} MiB in use (${per100k(f.heapAfterLoad.cloudctl)}); ` +
          (Number.isNaN(f.liveHeapAtSync)
            ? 'live heap: run with --profile'
            : `at sync, live and allocated since its start (sampled) ${mb(f.liveHeapAtSync)} MiB (${per100k(f.liveHeapAtSync)})`),
        'compare runs of different sizes',
      ],
      [
        `agent + cloudctl ≤ ${TARGET.bothOfPeer}× the informer sets (peak; the issue's bound is at 20 accounts on PGlite)`,
        `${mb(both)} / ${mb(peerAll)} MiB = ${ratio(both, peerAll)}`,
        ON_POSTGRES
          ? '— (on PostgreSQL the store is outside cloudctl)'
          : met(both <= TARGET.bothOfPeer * peerAll),
      ],
      [
        `read API p99 ≤ ${TARGET.readP99Ms} ms under the load (/applications/{app}/serverGroups?expand=true)`,
        `p99 ${fixed(readP99)} ms, p50 ${fixed(percentile(reads.ms, 50))} ms over ${reads.ms.length} reads` +
          (reads.notFound === 0
            ? ''
            : ` (${reads.notFound} more answered 404: the application not stored yet)`) +
          (reads.failedBatches === 0 ? '' : `; ${reads.failedBatches} batches failed: ${reads.firstError}`),
        met(readP99 <= TARGET.readP99Ms && reads.failedBatches === 0),
      ],
      [
        `published for this load: ${PUBLISHED.memory}, ${PUBLISHED.mcpu}`,
        `agents ${mb(f.peak.agents)} MiB, ${fixed(f.loadMcpu.agents, 0)} mCPU; ours in all ${mb(ours(f.peak))} MiB, ` +
          `${fixed(ours(f.loadMcpu), 0)} mCPU (published low ${mb(PUBLISHED.lowBytes)} MiB)`,
        '',
      ],
    ],
  );
}

function operationsTable(deploys: OperationTally, deletes: OperationTally): string {
  return table(
    [
      `operations in the load phase (tasks, followed every ${TASK_POLL_MS} ms)`,
      'deployManifest (SSA)',
      'deleteManifest',
    ],
    [
      ['completed', String(deploys.ms.length), String(deletes.ms.length)],
      ['failed', String(deploys.failed), String(deletes.failed)],
      ['p50, ms', fixed(percentile(deploys.ms, 50)), fixed(percentile(deletes.ms, 50))],
      ['p99, ms', fixed(percentile(deploys.ms, 99)), fixed(percentile(deletes.ms, 99))],
    ],
  );
}

const profileDir = values.profile;
if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const cluster = await startCluster({ nodes: NODES, log });
let postgres: PostgresServer | undefined;
try {
  if (ON_POSTGRES) postgres = await startPostgres();
  const binary = await buildInformerPeer();
  const nodes = await cluster.kwokNodes(NODES);
  const before = (await rawList(cluster.client, WORKLOAD_PATHS)).objects;
  /** What the populated namespaces hold once the controllers are done. */
  const populated = NAMESPACES * objectsPerNamespace();
  // Scoped to namespaces, an account sees none of what the cluster held before (kube-system, default).
  const perAccount = (OWN_LOAD ? 0 : before) + populated;
  log(
    `populating ${NAMESPACES} namespaces: ${perAccount} objects of the ten kinds once the controllers are done`,
  );
  const populating = performance.now();
  await populateWorkloads(cluster.client, namespaces, nodes);
  await waitFor(
    `${perAccount} objects, every Pod Running or Succeeded`,
    async () => {
      const listed = (await rawList(cluster.client, WORKLOAD_PATHS)).objects;
      return listed === before + populated && (await unsettledPods(cluster.client)) === 0 ? true : undefined;
    },
    10 * 60_000,
    2000,
  );
  log(`populated in ${((performance.now() - populating) / 1000).toFixed(0)} s`);
  if (OWN_LOAD) {
    const started = performance.now();
    await pool(0, ACCOUNTS, 20, (i) =>
      create(cluster.client, '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: loadNamespaceOf(accounts[i] ?? '') },
      }),
    );
    log(`${ACCOUNTS} load namespaces made in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const expected = perAccount * ACCOUNTS;

  const cloudctl = await startCloudctlProcess(dir, {
    agents: AGENTS,
    ...(postgres === undefined ? {} : { databaseUrl: postgres.url }),
  });
  const pgPid = postgresPid(postgres?.url);
  if (ON_POSTGRES && pgPid === undefined) throw new Error('no PostgreSQL server process found');
  let fleet: AgentFleet | undefined;
  let stopPeer = async () => {};
  let sampler: NodeJS.Timeout | undefined;
  try {
    const cloudctlAtStart = processStats(cloudctl.pid);
    // cloudctl's own start (opening a new embedded database) has a peak of its own, before any object
    // arrives: it is reported apart, and the peak in the table counts from the agents' start.
    resetPeakRss(cloudctl.pid);
    if (profileDir !== undefined) await cloudctl.startHeapSampling();
    const postgresCpuAtStart = pgPid === undefined ? 0 : processTreeCpuSeconds(pgPid);
    const agentsStarted = performance.now();
    fleet = await startAgentFleet({
      dir,
      cloudctl,
      kubeconfigPath: cluster.kubeconfigPath,
      kinds: AGENT_KINDS,
      shares,
      ...(OWN_LOAD ? { namespacesOf: (account: string) => [...namespaces, loadNamespaceOf(account)] } : {}),
      orchestratorExtra: [
        'serverSideApply:',
        '  enabled: always',
        // A connection the API server closes under the start's load is retried, not left to fail
        // the account's discovery (retryAnyError: false retries only timeouts); ten times, since
        // with three (the default) an account's watches failed for good at load 37 on two cores.
        'retries:',
        '  retryAnyError: true',
        '  maxRetries: 10',
      ],
      startLimitMs: 5 * 60_000,
    });
    const { members } = fleet;
    const darkAccounts = fleet.darkAccounts;
    // The peer starts once the agents have checked their accounts: started together, its initial
    // lists starve the agents' reachability checks on two cores, and an account whose check
    // times out stays FAILED (docs/benchmarks.md, "Many accounts in one agent").
    const peerStarted = performance.now();
    const peer = startInformerPeer({
      binary,
      kubeconfig: cluster.kubeconfigPath,
      kinds: PEER_KINDS,
      accounts: PEER_ACCOUNTS,
      ...(OWN_LOAD ? { namespaces, ownNamespace: PEER_LOAD_NAMESPACE } : {}),
    });
    stopPeer = () => peer.stop();
    const zero: ProcessStats = { rssBytes: 0, peakRssBytes: 0, cpuSeconds: 0 };
    const added = (all: readonly ProcessStats[]): ProcessStats => ({
      rssBytes: sum(all.map((s) => s.rssBytes)),
      peakRssBytes: sum(all.map((s) => s.peakRssBytes)),
      cpuSeconds: sum(all.map((s) => s.cpuSeconds)),
    });
    /** PostgreSQL's: every backend's Pss added, its CPU since cloudctl's start, its peak sampled. */
    const postgresStats = (): ProcessStats => {
      if (pgPid === undefined) return zero;
      const pss = processTreePssBytes(pgPid);
      return {
        rssBytes: pss,
        peakRssBytes: pss,
        cpuSeconds: processTreeCpuSeconds(pgPid) - postgresCpuAtStart,
      };
    };
    const stats = () => {
      const perAgent = members.map((m) => processStats(m.agent.pid));
      const sides: PerSide<ProcessStats> = {
        agents: added(perAgent),
        cloudctl: processStats(cloudctl.pid),
        postgres: postgresStats(),
        peer: processStats(peer.pid),
      };
      return { perAgent, sides };
    };
    const samples: Sample[] = [];
    const sample = () => {
      const now = stats();
      samples.push({
        atMs: performance.now(),
        stats: now.sides,
        perAgent: now.perAgent,
        sockets: {
          agents: sum(members.map((m) => socketCount(m.agent.pid))),
          cloudctl: socketCount(cloudctl.pid),
          postgres: pgPid === undefined ? 0 : socketCount(pgPid),
          peer: socketCount(peer.pid),
        },
      });
    };
    // With --profile, the first agent's heap near the sync's peak too: the profile after the sync no
    // longer holds it.
    let syncing = true;
    let profiledRss = 0;
    let profiledAt = 0;
    sampler = setInterval(() => {
      try {
        sample();
      } catch (error) {
        log(`no sample: ${String(error)}`); // a process gone: the run fails where it waits on it
        return;
      }
      const rss = samples.at(-1)?.perAgent[0]?.rssBytes ?? 0;
      if (syncing && rss > profiledRss * 1.2 && performance.now() - profiledAt > 30_000) {
        profiledRss = rss;
        profiledAt = performance.now();
        saveProfile('sync-peak', false).catch((error: unknown) => log(`no profile: ${String(error)}`));
      }
    }, SAMPLE_MS);
    /**
     * With --profile: each agent's live heap (sampled), smaps_rollup and metrics, and cloudctl's
     * smaps_rollup, metrics and (`heap`) what its live heap holds by allocation site (sampled
     * since its start), named for the moment. Resolves with cloudctl's sampled live heap (NaN
     * without).
     */
    const saveProfile = async (moment: string, heap: boolean): Promise<number> => {
      if (profileDir === undefined) return Number.NaN;
      const save = (name: string, data: string | Buffer) =>
        writeFileSync(join(profileDir, `${moment}-${name}`), data);
      for (const [i, { agent }] of members.entries()) {
        const name = i === 0 ? 'agent' : `agent-${i}`;
        save(`${name}-heap.pb.gz`, Buffer.from(await (await fetch(`${agent.pprofUrl}/heap`)).arrayBuffer()));
        save(`${name}-smaps_rollup.txt`, readFileSync(`/proc/${agent.pid}/smaps_rollup`));
        save(`${name}-metrics.txt`, await (await fetch(agent.metricsUrl)).text());
      }
      save('cloudctl-smaps_rollup.txt', readFileSync(`/proc/${cloudctl.pid}/smaps_rollup`));
      save('cloudctl-metrics.txt', await (await fetch(`${cloudctl.url}/metrics`)).text());
      log(
        `saved the agents' heap profiles, smaps_rollup and metrics (cloudctl's too) at ${moment} in ${profileDir}`,
      );
      if (!heap) return Number.NaN;
      const summary = await cloudctl.liveHeapSamples();
      save('cloudctl-heap-samples.json', JSON.stringify(summary, null, 2));
      const list = (groups: ReadonlyArray<{ site: string; bytes: number }>) =>
        groups
          .slice(0, 8)
          .map((g) => `${g.site} ${mb(g.bytes)}`)
          .join('; ');
      // Read right after the collection the samples needed: the heap without its garbage.
      const collected = await cloudctl.metricSum('nodejs_heap_size_used_bytes');
      log(
        `cloudctl's heap at ${moment}: ${mb(collected)} MiB used after a full collection; of it allocated since ` +
          `its start and live (sampled) ${mb(summary.sampledBytes)} MiB; by our frame: ${list(summary.byOwnFrame)}; ` +
          `by site: ${list(summary.bySite)}`,
      );
      return summary.sampledBytes;
    };
    log(
      `${ACCOUNTS} accounts × ${AGENT_KINDS.length} kinds over ${AGENTS} agent(s): syncing ${expected} objects; ` +
        `the peer ${PEER_ACCOUNTS} informer sets, ${perAccount * PEER_ACCOUNTS} objects`,
    );
    const [synced, theirs] = await Promise.all([
      waitFor(
        `cloudctl to store ${expected} objects (agent logs: ${dir})`,
        storedAll(cloudctl, expected, darkAccounts),
        SYNC_LIMIT_MS,
        100,
      ).then(() => ({ ms: performance.now() - agentsStarted, stats: stats().sides })),
      within(peer.synced, SYNC_LIMIT_MS, 'the client-go informers to sync').then((report) => ({
        ms: performance.now() - peerStarted,
        stats: processStats(peer.pid),
        objects: report.objects,
      })),
    ]);
    syncing = false;
    sample();
    log(
      `agents synced in ${(synced.ms / 1000).toFixed(1)} s; informers in ${(theirs.ms / 1000).toFixed(1)} s`,
    );
    const liveHeapAtSync = await saveProfile('sync', true);
    if (theirs.objects !== perAccount * PEER_ACCOUNTS)
      log(`the informers hold ${theirs.objects} objects, not ${perAccount * PEER_ACCOUNTS}`);
    const counted = await heldBy(cloudctl);
    if (counted < expected) throw new Error(`cloudctl holds ${counted} objects, not the ${expected} listed`);

    // The load: each account deploys a one-replica Deployment once a minute (accounts spread over the
    // minute) and deletes it 30 s later, each a task sent to cloudctl's HTTP API, as Spinnaker sends it,
    // with a moniker naming the account's application. Meanwhile the read API is asked for the server
    // groups of applications that are up.
    const deploys = new OperationTally();
    const deletes = new OperationTally();
    /** Accounts whose deployment is up, with when its deletion is due (ms into the load). */
    const up = new Map<string, number>();
    const loadStarted = performance.now();
    const loadFirstSample = samples.length;
    const cpuAtLoad = stats().sides;
    const ingestedAtLoad = await cloudctl.metricSum(INGESTED);
    const requestsAtLoad = await cloudctl.metricSum(HTTP_REQUESTS);
    const apiServerPid = cluster.pids()['kube-apiserver'];
    const apiServerCpu = () =>
      apiServerPid === undefined ? Number.NaN : processStats(apiServerPid).cpuSeconds;
    const apiCpuAtLoad = apiServerCpu();
    const benchCpuAtLoad = process.cpuUsage();
    const elapsed = () => performance.now() - loadStarted;
    const untilOffset = (ms: number) => sleep(Math.max(0, ms - elapsed()));
    const cycle = async (account: string, i: number, minute: number) => {
      const namespace = OWN_LOAD ? loadNamespaceOf(account) : namespaceName(i % NAMESPACES);
      const name = `${account}-m${minute}`;
      const at = minute * MINUTE_MS + (i / ACCOUNTS) * MINUTE_MS;
      await untilOffset(at);
      const deployed = await deploys.time(
        () =>
          runTask(
            cloudctl,
            'deployManifest',
            {
              account,
              moniker: { app: applicationOf(account) },
              manifests: [deployment(namespace, name, 1)],
            },
            TASK_POLL_MS,
          ),
        `deploy ${account} ${name}`,
      );
      // A moment for the agent to stream the Deployment, so a read of the application finds it (a
      // second was too short on a machine at load 37: a read answered 404).
      if (deployed) setTimeout(() => up.set(account, at + DELETE_AFTER_MS), 5000);
      await untilOffset(at + DELETE_AFTER_MS);
      up.delete(account);
      await deletes.time(
        () =>
          runTask(
            cloudctl,
            'deleteManifest',
            {
              account,
              location: namespace,
              manifestName: `deployment ${name}`,
              options: { cascading: true },
            },
            TASK_POLL_MS,
          ),
        `delete ${account} ${name}`,
      );
    };
    /** Ten reads at a time, of applications up for at least the batch's length yet. */
    const nextReads = () => {
      const batch = 10;
      const lasting = [...up].filter(([, due]) => due - elapsed() > (batch / READ_RATE) * 1000 + 5000);
      return Array.from({ length: lasting.length === 0 ? 0 : batch }, () => {
        const [account] = lasting[Math.floor(Math.random() * lasting.length)] ?? [''];
        return `/applications/${applicationOf(account)}/serverGroups?expand=true`;
      });
    };
    const reads = startReadLoad({
      base: cloudctl.url,
      headers: { authorization: `Bearer ${cloudctl.userToken}` },
      nextPaths: nextReads,
      ratePerSecond: READ_RATE,
    });
    log(
      `load: ${MINUTES} min, ${ACCOUNTS} deployments and ${ACCOUNTS} deletions a minute, ${READ_RATE} reads/s`,
    );
    const progress = setInterval(() => {
      const now = stats().sides;
      log(
        `  load: ${deploys.ms.length} deployed, ${deletes.ms.length} deleted, ` +
          `${deploys.failed + deletes.failed} failed; RSS agents ${mb(now.agents.rssBytes)} MiB, ` +
          `cloudctl ${mb(now.cloudctl.rssBytes)} MiB${ON_POSTGRES ? `, PostgreSQL ${mb(now.postgres.rssBytes)} MiB` : ''}`,
      );
    }, MINUTE_MS);
    let readResult: ReadLoadResult;
    try {
      await Promise.all(
        Array.from({ length: MINUTES }, (_, minute) =>
          accounts.map((account, i) => cycle(account, i, minute)),
        ).flat(),
      );
    } finally {
      clearInterval(progress);
      readResult = await reads.stop();
    }
    sample();
    const loadSeconds = elapsed() / 1000;
    const cpuAfterLoad = stats().sides;
    const apiCpu = apiServerCpu() - apiCpuAtLoad;
    const benchCpu = process.cpuUsage(benchCpuAtLoad);
    const changesDuringLoad = (await cloudctl.metricSum(INGESTED)) - ingestedAtLoad;
    const requestsDuringLoad = (await cloudctl.metricSum(HTTP_REQUESTS)) - requestsAtLoad;

    // Nothing lost: once the last deletions have reached it, cloudctl holds what the cluster holds.
    const settled = await waitFor(
      'cloudctl to hold what the cluster holds after the load',
      async () => {
        const total = (await rawList(cluster.client, WORKLOAD_PATHS)).objects;
        // Own load namespaces: what is left in them is held by their account alone.
        const listed = OWN_LOAD ? total - before - populated + perAccount * ACCOUNTS : total * ACCOUNTS;
        return (await heldBy(cloudctl)) === listed ? listed : undefined;
      },
      3 * 60_000,
      5000,
    ).catch(async (error: unknown) => {
      log(error instanceof Error ? error.message : String(error));
      log(`what differs: ${await heldAgainstListed(cloudctl, cluster.client)}`);
      return undefined;
    });
    const heapAfterLoad: PerSide<number> = {
      agents: sum(await Promise.all(members.map((m) => m.agent.metric('nodejs_heap_size_used_bytes')))),
      cloudctl: await cloudctl.metricSum('nodejs_heap_size_used_bytes'),
      postgres: Number.NaN,
      peer: (await peer.stats()).heapAllocBytes,
    };
    const cloudctlExternal = await cloudctl.metricSum('nodejs_external_memory_bytes');
    const rollupKb = (pid: number, field: string) =>
      Number(
        new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
          readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'),
        )?.[1],
      );
    const anonymous = (pid: number) =>
      `anonymous ${fixed(rollupKb(pid, 'Anonymous') / 1024)} MiB of ${fixed(rollupKb(pid, 'Rss') / 1024)} MiB RSS`;
    await saveProfile('load', true);

    const mcpu = (side: Side) =>
      ((cpuAfterLoad[side].cpuSeconds - cpuAtLoad[side].cpuSeconds) / loadSeconds) * 1000;
    const agentPeaks = members.map((m, i) =>
      Math.max(processStats(m.agent.pid).peakRssBytes, ...samples.map((s) => s.perAgent[i]?.rssBytes ?? 0)),
    );
    const figures: Figures = {
      syncMs: { ours: synced.ms, peer: theirs.ms * PEER_SCALE },
      cpuUntilSynced: {
        agents: synced.stats.agents.cpuSeconds,
        cloudctl: synced.stats.cloudctl.cpuSeconds - cloudctlAtStart.cpuSeconds,
        postgres: synced.stats.postgres.cpuSeconds,
        peer: theirs.stats.cpuSeconds,
      },
      rssAtSync: { ...perSide((side) => synced.stats[side].rssBytes), peer: theirs.stats.rssBytes },
      // VmHWM, or a sampled RSS above it: the kernel updates the two at different moments. The
      // agents' is the sum of each one's; PostgreSQL's the highest sample.
      peak: perSide((side) =>
        side === 'agents'
          ? sum(agentPeaks)
          : Math.max(cpuAfterLoad[side].peakRssBytes, ...samples.map((s) => s.stats[side].rssBytes)),
      ),
      agentPeaks,
      cloudctlStart: cloudctlAtStart,
      load: samples.slice(loadFirstSample),
      syncSamples: samples.slice(0, loadFirstSample),
      loadMcpu: perSide(mcpu),
      heapAfterLoad,
      liveHeapAtSync,
      objects: expected,
    };
    const tasks = {
      failed: deploys.failed + deletes.failed,
      completed: deploys.ms.length + deletes.ms.length,
      expected: 2 * MINUTES * ACCOUNTS,
    };
    console.log(
      [
        `### ${ACCOUNTS} accounts over ${AGENTS} agent(s), ${perAccount} objects each (${expected} in all), ` +
          `cloudctl on ${ON_POSTGRES ? 'PostgreSQL' : 'PGlite'}, ${MINUTES} min of load`,
        '',
        costTable(figures),
        '',
        `Who holds the objects: the agents none (they stream them to cloudctl); ${
          ON_POSTGRES
            ? 'PostgreSQL, a process of its own (its figures add every backend’s Pss; its peak is the highest sample)'
            : 'cloudctl its store (the embedded PGlite, inside its process)'
        }; client-go its informers' caches${
          PEER_SCALE === 1
            ? ''
            : ` (${PEER_ACCOUNTS} sets measured, the ratios against them × ${fixed(PEER_SCALE, 2)}; the sync time too)`
        }. "ours in all" adds our columns, except for the maxima over samples (the highest sum in one sample); the ` +
          'peak row adds the VmHWM, an upper bound. The initial sync is ours: until cloudctl has stored every ' +
          "object. cloudctl's peak counts from the agents' start; its own start before it peaked at " +
          `${mb(figures.cloudctlStart.peakRssBytes)} MiB, and its RSS was ${mb(figures.cloudctlStart.rssBytes)} MiB when the first agent started.`,
        '',
        agentTable(figures),
        '',
        operationsTable(deploys, deletes),
        '',
        targetTable(figures, tasks, readResult),
      ].join('\n'),
    );
    log(
      `load phase ${loadSeconds.toFixed(0)} s: cloudctl stored ${changesDuringLoad} changes ` +
        `(${(changesDuringLoad / loadSeconds).toFixed(0)}/s) and answered ${requestsDuringLoad} HTTP requests ` +
        `(${(requestsDuringLoad / loadSeconds).toFixed(1)}/s: tasks started and followed, reads); kube-apiserver ${fixed((apiCpu / loadSeconds) * 1000, 0)} mCPU; ` +
        `bench process (the load generator) ${fixed(((benchCpu.user + benchCpu.system) / 1e6 / loadSeconds) * 1000, 0)} mCPU`,
    );
    log(
      `after the load: cloudctl ${settled === undefined ? 'did not converge' : `holds all ${settled} objects`}; ` +
        `cloudctl heap ${mb(heapAfterLoad.cloudctl)} MiB used, external${ON_POSTGRES ? '' : " (PGlite's memory among it)"} ` +
        `${mb(cloudctlExternal)} MiB, ${anonymous(cloudctl.pid)}; the first agent ${anonymous(members[0]?.agent.pid ?? 0)}`,
    );
    log(
      `population: ${NAMESPACES} namespaces × ${objectsPerNamespace()} objects (${JSON.stringify(PER_NAMESPACE)}) + ${before} already there`,
    );
  } finally {
    clearInterval(sampler);
    await stopPeer();
    await fleet?.stop();
    await cloudctl.stop();
  }
} finally {
  await postgres?.stop();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
