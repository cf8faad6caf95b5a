// bench/many-accounts: one agent serving many accounts, as the product we replace published figures
// for (100 accounts caching ten kinds across 50 namespaces, one deployment and one deletion per
// account per minute: 4.5–7.5 GB, 110–1000 mCPU). Every account is the same real cluster through the
// same kubeconfig. Beside it, in the same run and watching at the same time, one Go process with as
// many sets of client-go shared informers (one clientset and factory per account). Reports the
// initial sync (until cloudctl has stored every account's objects; until every informer has
// synced), RSS and CPU from /proc over a load phase of deploy and delete operations, and the
// operations' outcomes. The agent holds no objects: it streams them to cloudctl, whose store holds
// them, while the informers hold them in their caches; so cloudctl's RSS and CPU are reported
// beside the agent's, with their sum. cloudctl runs as its own process (`cloudctl serve`, its
// embedded database inside it) so that /proc gives its cost alone, not the load generator's; the
// benchmark reaches it as a client does, through its HTTP API and /metrics, and sends the load as
// Spinnaker does: deployManifest and deleteManifest tasks, followed until they end. Usage:
//   node bench/many-accounts.ts [--accounts 100] [--namespaces 50] [--minutes 10]
//                               [--sample-seconds 5] [--nodes 10] [--task-poll-ms 100] [--profile DIR]
// --task-poll-ms: how often each task is followed (GET /task/{id}); its latency is seen that late.
// --profile saves, once synced and after the load phase, the agent's heap profile (`go tool pprof
// -top`), its /proc smaps_rollup and its /metrics, and cloudctl's smaps_rollup and /metrics.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { ApiClient } from '../test/cluster/api-client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { startAgentProcess, waitFor, within } from './lib/bench-system.ts';
import { type CloudctlProcess, startCloudctlProcess } from './lib/cloudctl-process.ts';
import { runTask } from './lib/cloudctl-tasks.ts';
import { type ProcessStats, processStats, resetPeakRss, socketCount } from './lib/process-stats.ts';
import { rawList } from './lib/raw-list.ts';
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
    'sample-seconds': { type: 'string', default: '5' },
    nodes: { type: 'string', default: '10' },
    'task-poll-ms': { type: 'string', default: '100' },
    profile: { type: 'string' },
  },
});
const ACCOUNTS = Number(values.accounts);
const NAMESPACES = Number(values.namespaces);
const MINUTES = Number(values.minutes);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const NODES = Number(values.nodes);
const TASK_POLL_MS = Number(values['task-poll-ms']);
const log = (line: string) => console.error(`[many-accounts] ${line}`);
const SYNC_LIMIT_MS = 20 * 60_000;
const MINUTE_MS = 60_000;
/** How long after its deployment each account deletes it. */
const DELETE_AFTER_MS = 30_000;
/** The published figures of the product we replace, for this load. */
const PUBLISHED = { memory: '4.5–7.5 GB', mcpu: '110–1000 mCPU', lowBytes: 4.5e9 };

const pad = (i: number) => String(i).padStart(3, '0');
const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `acct-${pad(i)}`);
const namespaceName = (i: number) => `team-${pad(i)}`;
const namespaces = Array.from({ length: NAMESPACES }, (_, i) => namespaceName(i));

async function unsettledPods(client: ApiClient): Promise<number> {
  const selector = encodeURIComponent('status.phase!=Running,status.phase!=Succeeded');
  const response = await client.request('GET', `/api/v1/pods?fieldSelector=${selector}`);
  if (response.status !== 200) throw new Error(`list pods: HTTP ${response.status}`);
  return ((response.json as { items?: unknown[] }).items ?? []).length;
}

/** The three processes measured, in the table's order. */
type Side = 'agent' | 'cloudctl' | 'peer';
type PerSide<T> = Record<Side, T>;
const perSide = <T>(pick: (side: Side) => T): PerSide<T> => ({
  agent: pick('agent'),
  cloudctl: pick('cloudctl'),
  peer: pick('peer'),
});

interface Sample {
  atMs: number;
  stats: PerSide<ProcessStats>;
  sockets: PerSide<number>;
}

/** Outcomes and latencies of one operation type. */
class OperationTally {
  readonly ms: number[] = [];
  failed = 0;
  #errors = 0;

  async time(run: () => Promise<{ outcome: string; error: string | null }>, what: string): Promise<void> {
    const started = performance.now();
    try {
      const outcome = await run();
      if (outcome.outcome === 'succeeded') {
        this.ms.push(performance.now() - started);
        return;
      }
      this.#fail(what, outcome.error ?? outcome.outcome);
    } catch (error) {
      this.#fail(what, error instanceof Error ? error.message : String(error));
    }
  }

  #fail(what: string, cause: string) {
    this.failed++;
    // The first few say why; a flood would hide the table.
    if (++this.#errors <= 5) log(`${what} failed: ${cause}`);
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
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
  return records.filter((r) => names.has(r.account)).reduce((sum, r) => sum + r.totalObjects, 0);
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
  return async (): Promise<true | undefined> => {
    if (++probes % 20 === 0 && dark().length > 0)
      throw new Error(`accounts that will not sync:\n${dark().join('\n')}`);
    if ((await cloudctl.metricSum(INGESTED)) < expected) return undefined;
    if (performance.now() - countedAt < 1000) return undefined;
    countedAt = performance.now();
    return (await heldBy(cloudctl)) >= expected ? true : undefined;
  };
}

/** The figures of the first table, each per process. */
interface Figures {
  syncMs: { ours: number; peer: number };
  cpuUntilSynced: PerSide<number>;
  rssAtSync: PerSide<number>;
  /** VmHWM from each process's start; cloudctl's from the agent's start. */
  peak: PerSide<number>;
  /** cloudctl before the agent started: its start-up's VmHWM and its RSS then. */
  cloudctlStart: ProcessStats;
  load: readonly Sample[];
  syncSamples: readonly Sample[];
  loadMcpu: PerSide<number>;
  heapAfterLoad: PerSide<number>;
}

/**
 * Who holds the objects, beside what each process costs. "agent + cloudctl" adds the two columns,
 * except where a maximum over samples is taken: there it is the highest sum in one sample (their
 * peaks need not coincide); the peak row adds the two VmHWM, an upper bound.
 */
function costTable(f: Figures): string {
  const row = (label: string, figures: PerSide<number>, sum: number, unit: (n: number) => string) => [
    label,
    unit(figures.agent),
    unit(figures.cloudctl),
    unit(sum),
    unit(figures.peer),
    ratio(figures.agent, figures.peer),
    ratio(sum, figures.peer),
  ];
  const added = (figures: PerSide<number>) => figures.agent + figures.cloudctl;
  const simple = (label: string, figures: PerSide<number>, unit: (n: number) => string) =>
    row(label, figures, added(figures), unit);
  /** The highest of each process over the samples, and the highest sum of the two in one sample. */
  const maxOf = (
    label: string,
    samples: readonly Sample[],
    pick: (s: Sample, side: Side) => number,
    unit: (n: number) => string,
  ) =>
    row(
      label,
      perSide((side) => Math.max(...samples.map((s) => pick(s, side)))),
      Math.max(...samples.map((s) => pick(s, 'agent') + pick(s, 'cloudctl'))),
      unit,
    );
  const count = (n: number) => fixed(n, 0);
  const none = Number.NaN;
  return table(
    [
      'figure',
      `orch-agent, ${ACCOUNTS} accounts`,
      'cloudctl',
      'agent + cloudctl',
      `client-go, ${ACCOUNTS} informer sets`,
      'agent/peer',
      '(agent + cloudctl)/peer',
    ],
    [
      ['holds the objects', 'none', 'its store', "cloudctl's store", 'its cache', '', ''],
      row('initial sync, s', { agent: none, cloudctl: none, peer: f.syncMs.peer }, f.syncMs.ours, (ms) =>
        fixed(ms / 1000, 1),
      ),
      simple('CPU until synced, s', f.cpuUntilSynced, (n) => fixed(n, 1)),
      simple('RSS at sync, MiB', f.rssAtSync, mb),
      simple('peak RSS (VmHWM, from the agent start), MiB', f.peak, mb),
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

function targetTable(f: Figures): string {
  const agent = f.peak.agent;
  const both = f.peak.agent + f.peak.cloudctl;
  const meanLoad = mean(f.load.map((s) => s.stats.agent.rssBytes));
  return table(
    ['target', 'figure', 'result'],
    [
      [
        'RSS ≤ 1.5× the Go process (peak, VmHWM)',
        `${mb(agent)} / ${mb(f.peak.peer)} MiB = ${ratio(agent, f.peak.peer)}`,
        agent <= 1.5 * f.peak.peer ? 'met' : 'missed',
      ],
      [
        'the same for agent + cloudctl, who hold what the informers hold (not a target of issue 18)',
        `${mb(both)} / ${mb(f.peak.peer)} MiB = ${ratio(both, f.peak.peer)}`,
        both <= 1.5 * f.peak.peer ? 'met' : 'missed',
      ],
      [
        'RSS < 10% of the published 4.5 GB (450 MB = 429.2 MiB), peak',
        `${mb(agent)} MiB peak, ${mb(meanLoad)} MiB mean under load`,
        agent < PUBLISHED.lowBytes / 10 ? 'met' : 'missed',
      ],
      [
        `published for this load: ${PUBLISHED.memory}, ${PUBLISHED.mcpu}`,
        `agent ${mb(agent)} MiB, ${fixed(f.loadMcpu.agent, 0)} mCPU; agent + cloudctl ${mb(both)} MiB, ` +
          `${fixed(f.loadMcpu.agent + f.loadMcpu.cloudctl, 0)} mCPU`,
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
try {
  const binary = await buildInformerPeer();
  const nodes = await cluster.kwokNodes(NODES);
  const before = (await rawList(cluster.client, WORKLOAD_PATHS)).objects;
  const perAccount = before + NAMESPACES * objectsPerNamespace();
  log(
    `populating ${NAMESPACES} namespaces: ${perAccount} objects of the ten kinds once the controllers are done`,
  );
  const populating = performance.now();
  await populateWorkloads(cluster.client, namespaces, nodes);
  await waitFor(
    `${perAccount} objects, every Pod Running or Succeeded`,
    async () => {
      const listed = (await rawList(cluster.client, WORKLOAD_PATHS)).objects;
      return listed === perAccount && (await unsettledPods(cluster.client)) === 0 ? true : undefined;
    },
    10 * 60_000,
    2000,
  );
  log(`populated in ${((performance.now() - populating) / 1000).toFixed(0)} s`);
  const expected = perAccount * ACCOUNTS;

  // The agent's log file appears a moment after its process.
  const agentLog = () =>
    existsSync(join(dir, 'agent.log')) ? readFileSync(join(dir, 'agent.log'), 'utf8') : '';
  /** Lines saying an account will not sync in this process: nothing retries them. */
  const darkAccounts = () =>
    agentLog()
      .split('\n')
      .filter((line) => line.includes('"msg":"account failed"') || line.includes('watches failed'));
  const cloudctl = await startCloudctlProcess(dir);
  let stopAgent = async () => {};
  let stopPeer = async () => {};
  let sampler: NodeJS.Timeout | undefined;
  try {
    const cloudctlAtStart = processStats(cloudctl.pid);
    // cloudctl's own start (opening a new embedded database) has a peak of its own, before any object
    // arrives: it is reported apart, and the peak in the table counts from the agent's start.
    resetPeakRss(cloudctl.pid);
    const agentStarted = performance.now();
    const agent = await startAgentProcess({
      dir,
      controlPlane: cloudctl,
      kubeconfigPath: cluster.kubeconfigPath,
      kinds: AGENT_KINDS,
      accounts,
      orchestratorExtra: [
        'serverSideApply:',
        '  enabled: always',
        // A connection the API server closes under the start's load is retried, not left to fail
        // the account's discovery (retryAnyError: false retries only timeouts).
        'retries:',
        '  retryAnyError: true',
      ],
    });
    stopAgent = () => agent.stop();
    // The peer starts once the agent has checked its accounts: started together, its 1000 initial
    // lists starve the agent's 100 reachability checks on two cores, and an account whose check
    // times out stays FAILED (docs/benchmarks.md, "Many accounts in one agent").
    await waitFor(
      'the agent to check its accounts',
      async () => (agentLog().includes('"msg":"orch-agent started"') ? true : undefined),
      60_000,
      100,
    );
    const peerStarted = performance.now();
    const peer = startInformerPeer({
      binary,
      kubeconfig: cluster.kubeconfigPath,
      kinds: PEER_KINDS,
      accounts: ACCOUNTS,
    });
    stopPeer = () => peer.stop();
    const pids: PerSide<number> = { agent: agent.pid, cloudctl: cloudctl.pid, peer: peer.pid };
    const stats = () => perSide((side) => processStats(pids[side]));
    const samples: Sample[] = [];
    const sample = () => {
      samples.push({
        atMs: performance.now(),
        stats: stats(),
        sockets: perSide((side) => socketCount(pids[side])),
      });
    };
    // With --profile, the heap near the sync's peak too: the profile after the sync no longer holds it.
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
      const rss = samples.at(-1)?.stats.agent.rssBytes ?? 0;
      if (syncing && rss > profiledRss * 1.2 && performance.now() - profiledAt > 30_000) {
        profiledRss = rss;
        profiledAt = performance.now();
        saveProfile('sync-peak').catch((error: unknown) => log(`no profile: ${String(error)}`));
      }
    }, SAMPLE_MS);
    /**
     * With --profile: the agent's live heap (sampled), smaps_rollup and metrics, and cloudctl's
     * smaps_rollup and metrics, named for the moment.
     */
    const saveProfile = async (moment: string) => {
      if (profileDir === undefined) return;
      const save = (name: string, data: string | Buffer) =>
        writeFileSync(join(profileDir, `${moment}-${name}`), data);
      save('agent-heap.pb.gz', Buffer.from(await (await fetch(`${agent.pprofUrl}/heap`)).arrayBuffer()));
      save('agent-smaps_rollup.txt', readFileSync(`/proc/${agent.pid}/smaps_rollup`));
      save('agent-metrics.txt', await (await fetch(agent.metricsUrl)).text());
      save('cloudctl-smaps_rollup.txt', readFileSync(`/proc/${cloudctl.pid}/smaps_rollup`));
      save('cloudctl-metrics.txt', await (await fetch(`${cloudctl.url}/metrics`)).text());
      log(
        `saved the agent's heap profile, smaps_rollup and metrics (cloudctl's too) at ${moment} in ${profileDir}`,
      );
    };
    log(`${ACCOUNTS} accounts × ${AGENT_KINDS.length} kinds: syncing ${expected} objects on each side`);
    const [ours, theirs] = await Promise.all([
      waitFor(
        `cloudctl to store ${expected} objects (agent log: ${agent.logFile})`,
        storedAll(cloudctl, expected, darkAccounts),
        SYNC_LIMIT_MS,
        100,
      ).then(() => ({ ms: performance.now() - agentStarted, stats: stats() })),
      within(peer.synced, SYNC_LIMIT_MS, 'the client-go informers to sync').then((report) => ({
        ms: performance.now() - peerStarted,
        stats: processStats(peer.pid),
        objects: report.objects,
      })),
    ]);
    syncing = false;
    sample();
    await saveProfile('sync');
    log(`agent synced in ${(ours.ms / 1000).toFixed(1)} s; informers in ${(theirs.ms / 1000).toFixed(1)} s`);
    if (theirs.objects !== expected) log(`the informers hold ${theirs.objects} objects, not ${expected}`);
    const counted = await heldBy(cloudctl);
    if (counted < expected) throw new Error(`cloudctl holds ${counted} objects, not the ${expected} listed`);

    // The load: each account deploys a one-replica Deployment once a minute (accounts spread over the
    // minute) and deletes it 30 s later, each a task sent to cloudctl's HTTP API, as Spinnaker sends it.
    const deploys = new OperationTally();
    const deletes = new OperationTally();
    const loadStarted = performance.now();
    const loadFirstSample = samples.length;
    const cpuAtLoad = stats();
    const ingestedAtLoad = await cloudctl.metricSum(INGESTED);
    const requestsAtLoad = await cloudctl.metricSum(HTTP_REQUESTS);
    const apiServerPid = cluster.pids()['kube-apiserver'];
    const apiServerCpu = () =>
      apiServerPid === undefined ? Number.NaN : processStats(apiServerPid).cpuSeconds;
    const apiCpuAtLoad = apiServerCpu();
    const benchCpuAtLoad = process.cpuUsage();
    const untilOffset = (ms: number) => sleep(Math.max(0, loadStarted + ms - performance.now()));
    const cycle = async (account: string, i: number, minute: number) => {
      const namespace = namespaceName(i % NAMESPACES);
      const name = `${account}-m${minute}`;
      const at = minute * MINUTE_MS + (i / ACCOUNTS) * MINUTE_MS;
      await untilOffset(at);
      await deploys.time(
        () =>
          runTask(
            cloudctl,
            'deployManifest',
            { account, manifests: [deployment(namespace, name, 1)] },
            TASK_POLL_MS,
          ),
        `deploy ${account} ${name}`,
      );
      await untilOffset(at + DELETE_AFTER_MS);
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
    log(`load: ${MINUTES} min, ${ACCOUNTS} deployments and ${ACCOUNTS} deletions a minute`);
    const progress = setInterval(() => {
      const now = stats();
      log(
        `  load: ${deploys.ms.length} deployed, ${deletes.ms.length} deleted, ` +
          `${deploys.failed + deletes.failed} failed; RSS agent ${mb(now.agent.rssBytes)} MiB, ` +
          `cloudctl ${mb(now.cloudctl.rssBytes)} MiB`,
      );
    }, MINUTE_MS);
    try {
      await Promise.all(
        Array.from({ length: MINUTES }, (_, minute) =>
          accounts.map((account, i) => cycle(account, i, minute)),
        ).flat(),
      );
    } finally {
      clearInterval(progress);
    }
    sample();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const cpuAfterLoad = stats();
    const apiCpu = apiServerCpu() - apiCpuAtLoad;
    const benchCpu = process.cpuUsage(benchCpuAtLoad);
    const changesDuringLoad = (await cloudctl.metricSum(INGESTED)) - ingestedAtLoad;
    const requestsDuringLoad = (await cloudctl.metricSum(HTTP_REQUESTS)) - requestsAtLoad;

    // Nothing lost: once the last deletions have reached it, cloudctl holds what the cluster holds.
    const settled = await waitFor(
      'cloudctl to hold what the cluster holds after the load',
      async () => {
        const listed = (await rawList(cluster.client, WORKLOAD_PATHS)).objects * ACCOUNTS;
        return (await heldBy(cloudctl)) === listed ? listed : undefined;
      },
      3 * 60_000,
      5000,
    ).catch(async (error: unknown) => {
      log(error instanceof Error ? error.message : String(error));
      log(`what differs: ${await heldAgainstListed(cloudctl, cluster.client)}`);
      return undefined;
    });
    const heapAfterLoad = {
      agent: await agent.metric('nodejs_heap_size_used_bytes'),
      cloudctl: await cloudctl.metricSum('nodejs_heap_size_used_bytes'),
      peer: (await peer.stats()).heapAllocBytes,
    };
    const agentHeapTotal = await agent.metric('nodejs_heap_size_total_bytes');
    const agentExternal = await agent.metric('nodejs_external_memory_bytes');
    const cloudctlExternal = await cloudctl.metricSum('nodejs_external_memory_bytes');
    const rollupKb = (pid: number, field: string) =>
      Number(
        new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
          readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'),
        )?.[1],
      );
    const anonymous = (pid: number) =>
      `anonymous ${fixed(rollupKb(pid, 'Anonymous') / 1024)} MiB of ${fixed(rollupKb(pid, 'Rss') / 1024)} MiB RSS`;
    await saveProfile('load');

    const mcpu = (side: Side) =>
      ((cpuAfterLoad[side].cpuSeconds - cpuAtLoad[side].cpuSeconds) / loadSeconds) * 1000;
    const figures: Figures = {
      syncMs: { ours: ours.ms, peer: theirs.ms },
      cpuUntilSynced: {
        agent: ours.stats.agent.cpuSeconds,
        cloudctl: ours.stats.cloudctl.cpuSeconds - cloudctlAtStart.cpuSeconds,
        peer: theirs.stats.cpuSeconds,
      },
      rssAtSync: {
        agent: ours.stats.agent.rssBytes,
        cloudctl: ours.stats.cloudctl.rssBytes,
        peer: theirs.stats.rssBytes,
      },
      // VmHWM, or a sampled RSS above it: the kernel updates the two at different moments.
      peak: perSide((side) =>
        Math.max(cpuAfterLoad[side].peakRssBytes, ...samples.map((sample) => sample.stats[side].rssBytes)),
      ),
      cloudctlStart: cloudctlAtStart,
      load: samples.slice(loadFirstSample),
      syncSamples: samples.slice(0, loadFirstSample),
      loadMcpu: perSide(mcpu),
      heapAfterLoad,
    };
    console.log(
      [
        `### ${ACCOUNTS} accounts, ${perAccount} objects each (${expected} in all), ${MINUTES} min of load`,
        '',
        costTable(figures),
        '',
        'Who holds the objects: the agent none (it streams them to cloudctl); cloudctl its store (the ' +
          'embedded PGlite, inside its process); client-go its informers\' caches. "agent + cloudctl" ' +
          'adds the two, except for the maxima over samples (the highest sum in one sample); the peak ' +
          "row adds the two VmHWM, an upper bound. The initial sync is the pair's: until cloudctl " +
          "has stored every object. cloudctl's peak counts from the agent's start; its own start before " +
          `it (a new embedded database) peaked at ${mb(figures.cloudctlStart.peakRssBytes)} MiB, and its RSS ` +
          `was ${mb(figures.cloudctlStart.rssBytes)} MiB when the agent started.`,
        '',
        operationsTable(deploys, deletes),
        '',
        targetTable(figures),
      ].join('\n'),
    );
    log(
      `load phase ${loadSeconds.toFixed(0)} s: cloudctl stored ${changesDuringLoad} changes ` +
        `(${(changesDuringLoad / loadSeconds).toFixed(0)}/s) and answered ${requestsDuringLoad} HTTP requests ` +
        `(${(requestsDuringLoad / loadSeconds).toFixed(1)}/s: tasks started and followed); kube-apiserver ${fixed((apiCpu / loadSeconds) * 1000, 0)} mCPU; ` +
        `bench process (the load generator) ${fixed(((benchCpu.user + benchCpu.system) / 1e6 / loadSeconds) * 1000, 0)} mCPU`,
    );
    log(
      `after the load: cloudctl ${settled === undefined ? 'did not converge' : `holds all ${settled} objects`}; ` +
        `agent heap ${mb(heapAfterLoad.agent)} used of ${mb(agentHeapTotal)} MiB, external ${mb(agentExternal)} MiB, ` +
        `${anonymous(agent.pid)}; cloudctl heap ${mb(heapAfterLoad.cloudctl)} MiB used, external (PGlite's ` +
        `memory among it) ${mb(cloudctlExternal)} MiB, ${anonymous(cloudctl.pid)}`,
    );
    log(
      `population: ${NAMESPACES} namespaces × ${objectsPerNamespace()} objects (${JSON.stringify(PER_NAMESPACE)}) + ${before} already there`,
    );
  } finally {
    clearInterval(sampler);
    await stopPeer();
    await stopAgent();
    await cloudctl.stop();
  }
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
