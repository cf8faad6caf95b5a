// bench/many-accounts: one agent serving many accounts, as the product we replace published figures
// for (100 accounts caching ten kinds across 50 namespaces, one deployment and one deletion per
// account per minute: 4.5–7.5 GB, 110–1000 mCPU). Every account is the same real cluster through the
// same kubeconfig. Beside it, in the same run and watching at the same time, one Go process with as
// many sets of client-go shared informers (one clientset and factory per account). Reports the
// initial sync (until cloudctl has stored every account's objects; until every informer has
// synced), RSS and CPU from /proc over a load phase of deploy and delete operations sent by cloudctl,
// and the operations' outcomes. Usage:
//   node bench/many-accounts.ts [--accounts 100] [--namespaces 50] [--minutes 10]
//                               [--sample-seconds 5] [--profile DIR]
// --profile saves, once synced and after the load phase, the agent's heap profile (`go tool pprof
// -top`), its /proc smaps_rollup and its /metrics.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../test/cluster/api-client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { startAgentProcess, startBenchControlPlane, waitFor, within } from './lib/bench-system.ts';
import { type ProcessStats, processStats, socketCount } from './lib/process-stats.ts';
import { rawList } from './lib/raw-list.ts';
import { observeCommits, storedObjects } from './lib/store-probe.ts';
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
    profile: { type: 'string' },
  },
});
const ACCOUNTS = Number(values.accounts);
const NAMESPACES = Number(values.namespaces);
const MINUTES = Number(values.minutes);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const NODES = Number(values.nodes);
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

interface Sample {
  atMs: number;
  agent: ProcessStats;
  peer: ProcessStats;
  agentSockets: number;
  peerSockets: number;
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

  const controlPlane = await startBenchControlPlane(dir);
  const cache = controlPlane.plane.store.cache;
  const stored = storedObjects(cache);
  /** Objects cloudctl holds, counted in its database (the probe misses what a snapshot end removes). */
  const holds = async () => {
    let total = 0;
    for (const account of accounts) total += await cache.count(account);
    return total;
  };
  let changesStored = 0;
  observeCommits(cache, (changes) => {
    for (const change of changes) if (change.type === 'upsert' || change.type === 'delete') changesStored++;
  });
  // The agent's log file appears a moment after its process.
  const agentLog = () =>
    existsSync(join(dir, 'agent.log')) ? readFileSync(join(dir, 'agent.log'), 'utf8') : '';
  /** Lines saying an account will not sync in this process: nothing retries them. */
  const darkAccounts = () =>
    agentLog()
      .split('\n')
      .filter((line) => line.includes('"msg":"account failed"') || line.includes('watches failed'));
  const agentStarted = performance.now();
  const agent = await startAgentProcess({
    dir,
    controlPlane,
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
  let stopPeer = async () => {};
  let sampler: NodeJS.Timeout | undefined;
  try {
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
    const samples: Sample[] = [];
    const sample = () => {
      samples.push({
        atMs: performance.now(),
        agent: processStats(agent.pid),
        peer: processStats(peer.pid),
        agentSockets: socketCount(agent.pid),
        peerSockets: socketCount(peer.pid),
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
      const rss = samples.at(-1)?.agent.rssBytes ?? 0;
      if (syncing && rss > profiledRss * 1.2 && performance.now() - profiledAt > 30_000) {
        profiledRss = rss;
        profiledAt = performance.now();
        saveProfile('sync-peak').catch((error: unknown) => log(`no profile: ${String(error)}`));
      }
    }, SAMPLE_MS);
    /** With --profile: the agent's live heap (sampled), smaps_rollup and metrics, named for the moment. */
    const saveProfile = async (moment: string) => {
      if (profileDir === undefined) return;
      const save = (name: string, data: string | Buffer) =>
        writeFileSync(join(profileDir, `agent-${moment}-${name}`), data);
      save('heap.pb.gz', Buffer.from(await (await fetch(`${agent.pprofUrl}/heap`)).arrayBuffer()));
      save('smaps_rollup.txt', readFileSync(`/proc/${agent.pid}/smaps_rollup`));
      save('metrics.txt', await (await fetch(agent.metricsUrl)).text());
      log(`saved the agent's heap profile, smaps_rollup and metrics at ${moment} in ${profileDir}`);
    };
    log(`${ACCOUNTS} accounts × ${AGENT_KINDS.length} kinds: syncing ${expected} objects on each side`);
    let probes = 0;
    const [ours, theirs] = await Promise.all([
      waitFor(
        `cloudctl to store ${expected} objects (agent log: ${agent.logFile})`,
        async () => {
          if (stored() >= expected) return true;
          if (++probes % 100 === 0 && darkAccounts().length > 0)
            throw new Error(`accounts that will not sync:\n${darkAccounts().join('\n')}`);
          return undefined;
        },
        SYNC_LIMIT_MS,
        20,
      ).then(() => ({ ms: performance.now() - agentStarted, stats: processStats(agent.pid) })),
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
    const counted = await holds();
    if (counted < expected) throw new Error(`cloudctl holds ${counted} objects, not the ${expected} listed`);

    // The load: each account deploys a one-replica Deployment once a minute (accounts spread over the
    // minute) and deletes it 30 s later, each through an operation sent by cloudctl.
    const deploys = new OperationTally();
    const deletes = new OperationTally();
    const loadStarted = performance.now();
    const loadFirstSample = samples.length;
    const cpuAtLoad = { agent: processStats(agent.pid), peer: processStats(peer.pid) };
    const apiServerPid = cluster.pids()['kube-apiserver'];
    const apiServerCpu = () =>
      apiServerPid === undefined ? Number.NaN : processStats(apiServerPid).cpuSeconds;
    const apiCpuAtLoad = apiServerCpu();
    const benchCpuAtLoad = process.cpuUsage();
    changesStored = 0;
    const untilOffset = (ms: number) => sleep(Math.max(0, loadStarted + ms - performance.now()));
    const cycle = async (account: string, i: number, minute: number) => {
      const namespace = namespaceName(i % NAMESPACES);
      const name = `${account}-m${minute}`;
      const at = minute * MINUTE_MS + (i / ACCOUNTS) * MINUTE_MS;
      await untilOffset(at);
      await deploys.time(
        () =>
          controlPlane.plane.operations.execute({
            account,
            type: 'deploy',
            payload: { manifests: [deployment(namespace, name, 1)] },
          }),
        `deploy ${account} ${name}`,
      );
      await untilOffset(at + DELETE_AFTER_MS);
      await deletes.time(
        () =>
          controlPlane.plane.operations.execute({
            account,
            type: 'delete',
            payload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name },
          }),
        `delete ${account} ${name}`,
      );
    };
    log(`load: ${MINUTES} min, ${ACCOUNTS} deployments and ${ACCOUNTS} deletions a minute`);
    const progress = setInterval(
      () =>
        log(
          `  load: ${deploys.ms.length} deployed, ${deletes.ms.length} deleted, ` +
            `${deploys.failed + deletes.failed} failed; agent RSS ${mb(processStats(agent.pid).rssBytes)} MiB`,
        ),
      MINUTE_MS,
    );
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
    const cpuAfterLoad = { agent: processStats(agent.pid), peer: processStats(peer.pid) };
    const apiCpu = apiServerCpu() - apiCpuAtLoad;
    const benchCpu = process.cpuUsage(benchCpuAtLoad);
    const changesDuringLoad = changesStored;
    const load = samples.slice(loadFirstSample);

    // Nothing lost: once the last deletions have reached it, cloudctl holds what the cluster holds.
    const settled = await waitFor(
      'cloudctl to hold what the cluster holds after the load',
      async () => {
        const listed = (await rawList(cluster.client, WORKLOAD_PATHS)).objects * ACCOUNTS;
        return (await holds()) === listed ? listed : undefined;
      },
      3 * 60_000,
      5000,
    ).catch((error: unknown) => {
      log(error instanceof Error ? error.message : String(error));
      return undefined;
    });
    const agentHeap = await agent.metric('nodejs_heap_size_used_bytes');
    const agentHeapTotal = await agent.metric('nodejs_heap_size_total_bytes');
    const agentExternal = await agent.metric('nodejs_external_memory_bytes');
    const peerStats = await peer.stats();
    const rollup = readFileSync(`/proc/${agent.pid}/smaps_rollup`, 'utf8');
    const rollupKb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1]);
    await saveProfile('load');

    const peak = { agent: cpuAfterLoad.agent.peakRssBytes, peer: cpuAfterLoad.peer.peakRssBytes };
    const loadMean = {
      agent: mean(load.map((s) => s.agent.rssBytes)),
      peer: mean(load.map((s) => s.peer.rssBytes)),
    };
    const loadMax = {
      agent: Math.max(...load.map((s) => s.agent.rssBytes)),
      peer: Math.max(...load.map((s) => s.peer.rssBytes)),
    };
    const mcpu = (a: ProcessStats, b: ProcessStats) => ((b.cpuSeconds - a.cpuSeconds) / loadSeconds) * 1000;
    const loadMcpu = {
      agent: mcpu(cpuAtLoad.agent, cpuAfterLoad.agent),
      peer: mcpu(cpuAtLoad.peer, cpuAfterLoad.peer),
    };
    const sockets = (during: readonly Sample[]) => ({
      agent: Math.max(...during.map((s) => s.agentSockets)),
      peer: Math.max(...during.map((s) => s.peerSockets)),
    });
    const syncSockets = sockets(samples.slice(0, loadFirstSample));
    const loadSockets = sockets(load);
    const row = (label: string, o: number, t: number, unit: (n: number) => string) => [
      label,
      unit(o),
      unit(t),
      ratio(o, t),
    ];
    const secs = (ms: number) => fixed(ms / 1000, 1);
    console.log(
      [
        `### ${ACCOUNTS} accounts, ${perAccount} objects each (${expected} in all), ${MINUTES} min of load`,
        '',
        table(
          ['figure', `orch-agent, ${ACCOUNTS} accounts`, `client-go, ${ACCOUNTS} informer sets`, 'ours/peer'],
          [
            row('initial sync, s', ours.ms, theirs.ms, secs),
            row('CPU until synced, s', ours.stats.cpuSeconds, theirs.stats.cpuSeconds, (n) => fixed(n, 1)),
            row('RSS at sync, MiB', ours.stats.rssBytes, theirs.stats.rssBytes, mb),
            row('peak RSS (whole run), MiB', peak.agent, peak.peer, mb),
            row('RSS during load, mean, MiB', loadMean.agent, loadMean.peer, mb),
            row('RSS during load, max, MiB', loadMax.agent, loadMax.peer, mb),
            row('CPU during load, mCPU', loadMcpu.agent, loadMcpu.peer, (n) => fixed(n, 0)),
            row('heap in use after load, MiB', agentHeap, peerStats.heapAllocBytes, mb),
            row('open sockets during sync, max', syncSockets.agent, syncSockets.peer, (n) => fixed(n, 0)),
            row('open sockets during load, max', loadSockets.agent, loadSockets.peer, (n) => fixed(n, 0)),
          ],
        ),
        '',
        table(
          ['operations in the load phase', 'deploy (SSA)', 'delete'],
          [
            ['completed', String(deploys.ms.length), String(deletes.ms.length)],
            ['failed', String(deploys.failed), String(deletes.failed)],
            ['p50, ms', fixed(percentile(deploys.ms, 50)), fixed(percentile(deletes.ms, 50))],
            ['p99, ms', fixed(percentile(deploys.ms, 99)), fixed(percentile(deletes.ms, 99))],
          ],
        ),
        '',
        table(
          ['target', 'figure', 'result'],
          [
            [
              'RSS ≤ 1.5× the Go process (peak over the run)',
              `${mb(peak.agent)} / ${mb(peak.peer)} MiB = ${ratio(peak.agent, peak.peer)}`,
              peak.agent <= 1.5 * peak.peer ? 'met' : 'missed',
            ],
            [
              'RSS < 10% of the published 4.5 GB (450 MB = 429.2 MiB), peak',
              `${mb(peak.agent)} MiB peak, ${mb(loadMean.agent)} MiB mean under load`,
              peak.agent < PUBLISHED.lowBytes / 10 ? 'met' : 'missed',
            ],
            [
              `published for this load: ${PUBLISHED.memory}, ${PUBLISHED.mcpu}`,
              `${mb(peak.agent)} MiB, ${fixed(loadMcpu.agent, 0)} mCPU`,
              '',
            ],
          ],
        ),
      ].join('\n'),
    );
    log(
      `load phase ${loadSeconds.toFixed(0)} s: cloudctl stored ${changesDuringLoad} changes ` +
        `(${(changesDuringLoad / loadSeconds).toFixed(0)}/s); kube-apiserver ${fixed((apiCpu / loadSeconds) * 1000, 0)} mCPU; ` +
        `bench process (cloudctl, PGlite) ${fixed(((benchCpu.user + benchCpu.system) / 1e6 / loadSeconds) * 1000, 0)} mCPU`,
    );
    log(
      `after the load: cloudctl ${settled === undefined ? 'did not converge' : `holds all ${settled} objects`}; ` +
        `agent heap ${mb(agentHeap)} used of ${mb(agentHeapTotal)} MiB, external ${mb(agentExternal)} MiB, ` +
        `anonymous ${fixed(rollupKb('Anonymous') / 1024)} MiB of ${fixed(rollupKb('Rss') / 1024)} MiB RSS`,
    );
    log(
      `population: ${NAMESPACES} namespaces × ${objectsPerNamespace()} objects (${JSON.stringify(PER_NAMESPACE)}) + ${before} already there`,
    );
  } finally {
    clearInterval(sampler);
    await stopPeer();
    await agent.stop();
    await controlPlane.close();
  }
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
