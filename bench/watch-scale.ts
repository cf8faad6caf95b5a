// bench/watch-scale: how long the initial sync of a large cluster takes, and what it costs in
// memory and CPU, for the agent (until cloudctl has stored every object) beside a client-go
// informer (until its caches have synced), a raw paginated list (the physical limit of listing)
// and, on PostgreSQL, the stored path's floor (bench/peers/floor: a Go program listing by pages and
// COPYing into the same kind of PostgreSQL server, pipelined), all in one run against the same real
// cluster. Which side syncs first rotates rep by rep, and the output says the order. Usage:
//   node bench/watch-scale.ts [--sizes 10000,50000] [--reps 2] [--steady-seconds 10]
//                             [--database pglite|postgres] [--profile DIR]
// --database: cloudctl's store, its embedded PGlite (the default install) or a PostgreSQL server
// started for each run (PostgreSQL's server binaries must be installed, as .ci/run does). The floor
// runs only with postgres: it needs a server of its own, and PGlite runs inside cloudctl's process,
// so a native server beside it would not be the same database.
// --profile saves, per size, the agent's CPU profile of its first seconds (from its own pprof
// endpoint) and a heap profile once synced, for `go tool pprof -top`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../test/cluster/api-client.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { startPostgres } from '../test/support/postgres-server.ts';
import { ACCOUNT, startAgentProcess, startBenchControlPlane, waitFor, within } from './lib/bench-system.ts';
import { type Population, populate, population } from './lib/populate.ts';
import { postgresCpuSeconds, processStats } from './lib/process-stats.ts';
import { rawList } from './lib/raw-list.ts';
import { storeBusy, storedObjects } from './lib/store-probe.ts';
import { fixed, median, mib, ratio, table } from './lib/summary.ts';
import { buildFloorPeer, startFloorPeer } from './peers/floor-peer.ts';
import { buildInformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,50000' },
    reps: { type: 'string', default: '2' },
    'steady-seconds': { type: 'string', default: '10' },
    'keep-dir': { type: 'boolean', default: false },
    profile: { type: 'string' },
    database: { type: 'string', default: 'pglite' },
    'profile-seconds': { type: 'string', default: '8' },
  },
});
if (values.database !== 'pglite' && values.database !== 'postgres')
  throw new Error(`--database: pglite or postgres, not ${values.database}`);
const sizes = values.sizes.split(',').map(Number);
const reps = Number(values.reps);
const steadyMs = Number(values['steady-seconds']) * 1000;
const log = (line: string) => console.error(`[watch-scale] ${line}`);
const LIST_PATHS = ['/api/v1/configmaps', '/api/v1/pods'];
/** The same kinds, as the Go peers name them. */
const PEER_KINDS = ['configmaps', 'pods'];
const SYNC_LIMIT_MS = 15 * 60_000;

/** The figures one run of one contender gives. */
interface Figures {
  syncMs: number;
  peakRssBytes: number;
  steadyRssBytes: number;
  heapBytes: number;
  cpuSecondsAtSync: number;
  /** The agent only: seconds cloudctl spent committing batches until the sync, and how many. */
  storeSeconds?: number;
  storeCommits?: number;
  /** The agent only: CPU seconds of cloudctl (this process) until the sync. */
  cloudctlCpuSeconds?: number;
  /** The agent and the floor: CPU seconds of their PostgreSQL server until the sync. */
  postgresCpuSeconds?: number;
}

/** CPU until the objects are stored: the program's own, with cloudctl's and the database's. */
const storedCpu = (f: Figures) =>
  f.cpuSecondsAtSync + (f.cloudctlCpuSeconds ?? 0) + (f.postgresCpuSeconds ?? 0);

async function allPodsRunning(client: ApiClient): Promise<boolean> {
  const response = await client.request('GET', '/api/v1/pods?fieldSelector=status.phase!%3DRunning&limit=1');
  return response.status === 200 && ((response.json as { items?: unknown[] }).items ?? []).length === 0;
}

async function measureAgent(
  dir: string,
  kubeconfigPath: string,
  expected: number,
  profilePrefix?: string,
): Promise<Figures> {
  const postgres = values.database === 'postgres' ? await startPostgres() : undefined;
  const controlPlane = await startBenchControlPlane(dir, postgres?.url);
  const stored = storedObjects(controlPlane.plane.store.cache);
  const busy = storeBusy(controlPlane.plane.store.cache);
  const postgresCpu = postgresCpuSeconds(postgres?.url);
  const cloudctlBefore = process.cpuUsage();
  const postgresBefore = postgresCpu();
  const started = performance.now();
  const agent = await startAgentProcess({
    dir,
    controlPlane,
    kubeconfigPath,
    kinds: ['configMap', 'pod'],
  });
  try {
    const cpuProfile =
      profilePrefix === undefined
        ? undefined
        : captureCpuProfile(agent.pprofUrl, `${profilePrefix}.cpu.pb.gz`);
    await waitFor(
      `cloudctl to store ${expected} objects (agent log: ${agent.logFile})`,
      async () => (stored() >= expected ? true : undefined),
      SYNC_LIMIT_MS,
      10,
    );
    const syncMs = performance.now() - started;
    const atSync = processStats(agent.pid);
    const store = busy();
    const cloudctlCpu = process.cpuUsage(cloudctlBefore);
    const postgresCpuSeconds = postgresCpu() - postgresBefore;
    log(
      `  cloudctl committed ${store.commits} batches in ${store.seconds.toFixed(2)} s of ${(syncMs / 1000).toFixed(2)} s`,
    );
    // The probe's view, checked against the database's own.
    const counted = await controlPlane.plane.store.cache.count(ACCOUNT);
    if (counted < expected) throw new Error(`cloudctl holds ${counted} objects, not the ${expected} listed`);
    await cpuProfile;
    if (profilePrefix !== undefined) await download(`${agent.pprofUrl}/heap`, `${profilePrefix}.heap.pb.gz`);
    await sleep(steadyMs);
    const steady = processStats(agent.pid);
    return {
      syncMs,
      peakRssBytes: steady.peakRssBytes,
      steadyRssBytes: steady.rssBytes,
      heapBytes: await agent.metric('nodejs_heap_size_used_bytes'),
      cpuSecondsAtSync: atSync.cpuSeconds,
      storeSeconds: store.seconds,
      storeCommits: store.commits,
      cloudctlCpuSeconds: (cloudctlCpu.user + cloudctlCpu.system) / 1e6,
      postgresCpuSeconds,
    };
  } finally {
    await agent.stop();
    await controlPlane.close();
    await postgres?.stop();
  }
}

async function measurePeer(binary: string, kubeconfigPath: string): Promise<Figures> {
  const started = performance.now();
  const peer = startInformerPeer({ binary, kubeconfig: kubeconfigPath, kinds: PEER_KINDS });
  try {
    await within(peer.synced, SYNC_LIMIT_MS, 'the client-go informer to sync');
    const syncMs = performance.now() - started;
    const atSync = processStats(peer.pid);
    await sleep(steadyMs);
    const steady = processStats(peer.pid);
    const stats = await peer.stats();
    return {
      syncMs,
      peakRssBytes: steady.peakRssBytes,
      steadyRssBytes: steady.rssBytes,
      heapBytes: stats.heapAllocBytes,
      cpuSecondsAtSync: atSync.cpuSeconds,
    };
  } finally {
    await peer.stop();
  }
}

/**
 * The floor: list and COPY into a fresh PostgreSQL server started as ours is. Its steady RSS and
 * heap are not read (it holds no objects once stored; its pages are garbage).
 */
async function measureFloor(binary: string, kubeconfigPath: string, expected: number): Promise<Figures> {
  const postgres = await startPostgres();
  const postgresCpu = postgresCpuSeconds(postgres.url);
  const postgresBefore = postgresCpu();
  const started = performance.now();
  const floor = startFloorPeer({
    binary,
    kubeconfig: kubeconfigPath,
    databaseUrl: postgres.url,
    kinds: PEER_KINDS,
  });
  try {
    const report = await within(floor.stored, SYNC_LIMIT_MS, 'the floor to store every object');
    const syncMs = performance.now() - started;
    const atSync = processStats(floor.pid);
    const postgresCpuAtSync = postgresCpu() - postgresBefore;
    if (report.objects < expected)
      throw new Error(`the floor stored ${report.objects} objects, not the ${expected} listed`);
    return {
      syncMs,
      peakRssBytes: atSync.peakRssBytes,
      steadyRssBytes: Number.NaN,
      heapBytes: Number.NaN,
      cpuSecondsAtSync: atSync.cpuSeconds,
      postgresCpuSeconds: postgresCpuAtSync,
    };
  } finally {
    await floor.stop();
    await postgres.stop();
  }
}

async function download(url: string, file: string): Promise<void> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  log(`saved ${file}`);
}

/** Starts a CPU profile as soon as the agent's pprof port answers: it covers start-up and the sync. */
async function captureCpuProfile(pprofUrl: string, file: string): Promise<void> {
  await waitFor(
    "the agent's pprof port",
    async () => ((await fetch(`${pprofUrl}/`).catch(() => undefined))?.ok ? true : undefined),
    30_000,
    20,
  );
  await download(`${pprofUrl}/profile?seconds=${values['profile-seconds']}`, file);
}

/** `items` started at `by` (mod its length): rep n's order of the sides. */
const rotated = <T>(items: readonly T[], by: number): T[] => {
  const at = by % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
};

const medianOf = (runs: readonly Figures[], pick: (f: Figures) => number) => median(runs.map(pick));

interface SizeResult {
  size: number;
  objects: number;
  agent: Figures[];
  peer: Figures[];
  /** Empty on PGlite. */
  floor: Figures[];
  rawMs: number[];
  /** Which side synced first in each rep, in rep order. */
  orders: string[];
}

function sizeTable(result: SizeResult): string {
  const { agent, peer, floor, rawMs } = result;
  const row = (
    label: string,
    pick: (f: Figures) => number,
    unit: (n: number) => string,
    floorPick: ((f: Figures) => number) | undefined = pick,
  ) => {
    const ours = medianOf(agent, pick);
    const theirs = medianOf(peer, pick);
    const cells = [label, unit(ours), unit(theirs), ratio(ours, theirs)];
    if (floor.length === 0) return cells;
    const least = floorPick === undefined ? Number.NaN : medianOf(floor, floorPick);
    return [
      ...cells,
      floorPick === undefined ? '—' : unit(least),
      floorPick === undefined ? '—' : ratio(ours, least),
    ];
  };
  const cpu = (n: number) => fixed(n, 2);
  const secs = (ms: number) => fixed(ms / 1000, 2);
  const mb = (bytes: number) => fixed(mib(bytes), 1);
  const ourSync = medianOf(agent, (f) => f.syncMs);
  const raw = median(rawMs);
  return [
    `### ${result.size} objects (${result.objects} listed: ConfigMaps and Pods, every namespace; cloudctl on ${values.database})`,
    '',
    table(
      [
        'figure (median)',
        'orch-agent',
        'client-go informer',
        'ours/peer',
        ...(floor.length === 0 ? [] : ['floor (Go list + COPY)', 'ours/floor']),
      ],
      [
        row('initial sync (stored, for ours and the floor), s', (f) => f.syncMs, secs),
        row('peak RSS (the floor: at its sync), MiB', (f) => f.peakRssBytes, mb),
        row(`steady RSS (${steadyMs / 1000} s after sync), MiB`, (f) => f.steadyRssBytes, mb, undefined),
        row('heap in use, MiB', (f) => f.heapBytes, mb, undefined),
        row(
          'CPU until synced, the program alone (agent, informer, Go floor), s',
          (f) => f.cpuSecondsAtSync,
          cpu,
        ),
        row(
          'CPU until stored: agent + cloudctl + database (informer: alone; floor: Go + PostgreSQL), s',
          storedCpu,
          cpu,
        ),
      ],
    ),
    '',
    table(
      ['limit', 'raw paginated list (500/page)', 'orch-agent sync', 'ours/limit'],
      [['time, s', secs(raw), secs(ourSync), ratio(ourSync, raw)]],
    ),
    '',
    `Order by rep: ${result.orders.map((order, i) => `${i + 1}: ${order}`).join('; ')}.`,
    '',
    `cloudctl committing batches until the sync: ${fixed(
      medianOf(agent, (f) => f.storeSeconds ?? 0),
      2,
    )} s in ${Math.round(medianOf(agent, (f) => f.storeCommits ?? 0))} commits (median); CPU until the sync: cloudctl ${fixed(
      medianOf(agent, (f) => f.cloudctlCpuSeconds ?? 0),
      2,
    )} s, PostgreSQL ${fixed(
      medianOf(agent, (f) => f.postgresCpuSeconds ?? 0),
      2,
    )} s (0 on PGlite, inside cloudctl).`,
  ].join('\n');
}

function growthTable(results: readonly SizeResult[]): string {
  const first = results[0];
  const last = results.at(-1);
  if (first === undefined || last === undefined || first === last) return '';
  const growth = (pick: (r: SizeResult) => Figures[]) =>
    medianOf(pick(last), (f) => f.steadyRssBytes) - medianOf(pick(first), (f) => f.steadyRssBytes);
  const ours = growth((r) => r.agent);
  const theirs = growth((r) => r.peer);
  return [
    `### Steady RSS growth from ${first.size} to ${last.size} objects`,
    '',
    table(
      ['orch-agent, MiB', 'client-go informer, MiB', 'ours/peer (target ≤ 0.5)'],
      [[fixed(mib(ours)), fixed(mib(theirs)), ratio(ours, theirs)]],
    ),
  ].join('\n');
}

if (values.profile !== undefined) mkdirSync(values.profile, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const cluster = await startCluster({ nodes: 10, log });
try {
  const binary = await buildInformerPeer();
  const floorBinary = values.database === 'postgres' ? await buildFloorPeer() : undefined;
  const sides =
    floorBinary === undefined ? (['informer', 'ours'] as const) : (['informer', 'floor', 'ours'] as const);
  const nodes = await cluster.kwokNodes(10);
  const results: SizeResult[] = [];
  let previous: Population | undefined;
  for (const size of sizes) {
    const target = population(size);
    log(
      `populating ${size} objects (${target.configMaps} ConfigMaps, ${target.pods} Pods, ${target.namespaces} namespaces)`,
    );
    await populate(target, { client: cluster.client, nodes, from: previous, log });
    previous = target;
    await waitFor(
      'every Pod Running',
      async () => ((await allPodsRunning(cluster.client)) ? true : undefined),
      10 * 60_000,
      1000,
    );
    const result: SizeResult = { size, objects: 0, agent: [], peer: [], floor: [], rawMs: [], orders: [] };
    for (let rep = 1; rep <= reps; rep++) {
      const raw = await rawList(cluster.client, LIST_PATHS);
      result.objects = raw.objects;
      result.rawMs.push(raw.ms);
      log(`${size}: rep ${rep}: raw list ${raw.objects} objects in ${raw.ms.toFixed(0)} ms`);
      // Whichever side goes later finds the API server's caches and the page cache warm, or a busier
      // spell of this shared machine: rotating who goes first spreads that over every side.
      const order = rotated(sides, rep - 1);
      result.orders.push(order.join(' → '));
      log(`${size}: rep ${rep}: ${order.join(', then ')}`);
      for (const side of order) {
        if (side === 'informer') {
          const peer = await measurePeer(binary, cluster.kubeconfigPath);
          result.peer.push(peer);
          log(`${size}: rep ${rep}: informer synced in ${peer.syncMs.toFixed(0)} ms`);
          continue;
        }
        if (side === 'floor') {
          if (floorBinary === undefined) continue;
          const least = await measureFloor(floorBinary, cluster.kubeconfigPath, raw.objects);
          result.floor.push(least);
          log(`${size}: rep ${rep}: floor stored in ${least.syncMs.toFixed(0)} ms`);
          continue;
        }
        const profile =
          values.profile === undefined || rep > 1 ? undefined : join(values.profile, `agent-${size}`);
        const agent = await measureAgent(dir, cluster.kubeconfigPath, raw.objects, profile);
        result.agent.push(agent);
        log(`${size}: rep ${rep}: agent synced (stored by cloudctl) in ${agent.syncMs.toFixed(0)} ms`);
      }
    }
    results.push(result);
    console.log(`${sizeTable(result)}\n`);
  }
  console.log(growthTable(results));
} finally {
  await cluster.stop();
  if (!values['keep-dir']) rmSync(dir, { recursive: true, force: true });
}
