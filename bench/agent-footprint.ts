// bench/agent-footprint: what the agent costs before it does any work, beside a client-go informer
// in the same run: the time from spawning it to its first list request reaching the API server and
// to being ready (synced), its idle RSS with a breakdown, and what each part it loads costs. Usage:
//   node bench/agent-footprint.ts [--objects 100] [--reps 5] [--idle-seconds 10] [--probe-runs 3]
//                                 [--skip-probe] [--skip-cluster] [--cpu-prof DIR] [--residency]
// --residency: in the last warm start, which parts of the Node executable are resident, idle
// (executable-residency.ts: /proc pagemap and the executable's symbols; needs readelf and nm), and
// what the agent's V8 heap holds (a heap snapshot from its pprof port, heap-snapshot-summary.ts).
// --cpu-prof DIR: each agent writes a CPU profile of its whole life there (node --cpu-prof), for
// seeing where its start-up goes (open in Chrome's DevTools).
// The agent watches ConfigMaps in every namespace (N of them in 10 namespaces, plus the cluster's
// own); the informer the same. The first list request is timed from the API server's side: its
// audit log's `requestReceivedTimestamp` of the first ConfigMaps watch (the agent and client-go list
// by a watch with sendInitialEvents) from the process's user agent, against the wall clock at spawn.
// The agent's first start is on an empty compile cache (a pod's fresh /tmp); the other runs reuse it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AGENT_ENV, AGENT_NODE_FLAGS } from '../src/agent/agent-runtime.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { startAgentProcess, startBenchControlPlane, waitFor, within } from './lib/bench-system.ts';
import { type ExecutableResidency, executableResidency } from './lib/executable-residency.ts';
import { type HeapSummary, summarizeHeapSnapshot } from './lib/heap-snapshot-summary.ts';
import { type MemoryMap, memoryMap } from './lib/memory-map.ts';
import { populate } from './lib/populate.ts';
import { storedObjects } from './lib/store-probe.ts';
import { fixed, median, mib, ratio, table } from './lib/summary.ts';
import { buildInformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '100' },
    reps: { type: 'string', default: '5' },
    'idle-seconds': { type: 'string', default: '10' },
    'probe-runs': { type: 'string', default: '3' },
    'skip-probe': { type: 'boolean', default: false },
    'skip-cluster': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    residency: { type: 'boolean', default: false },
  },
});
const objects = Number(values.objects);
const reps = Number(values.reps);
const idleMs = Number(values['idle-seconds']) * 1000;
const probeRuns = Number(values['probe-runs']);
const ROOT = new URL('..', import.meta.url).pathname;
const log = (line: string) => console.error(`[agent-footprint] ${line}`);
const LIMIT_MS = 60_000;
/** The issue's targets (issue 18). */
const TARGET_IDLE_RSS_MIB = 80;
const TARGET_FIRST_LIST_S = 0.5;

/** The figures of one start of one contender. */
interface Start {
  /** Spawn to the first request of any kind received by the API server, ms. */
  firstRequestMs: number;
  /** Spawn to the first ConfigMaps list (a watch with sendInitialEvents) received, ms. */
  firstListMs: number;
  /** Spawn to ready: the agent's /readyz answering 200, the informer's caches synced, ms. */
  readyMs: number;
  /** The agent only: spawn to cloudctl having stored every ConfigMap, ms. */
  storedMs?: number;
  /** Idle, `idleMs` after ready. */
  rssBytes: number;
  map: MemoryMap;
  /** V8's figures from the agent's /metrics, or Go's from the informer's own report. */
  heap: Record<string, number>;
}

const auditEventSchema = z.object({
  stage: z.string(),
  verb: z.string(),
  requestURI: z.string(),
  userAgent: z.string().optional(),
  requestReceivedTimestamp: z.string(),
  objectRef: z.object({ resource: z.string().optional() }).optional(),
});
type AuditEvent = z.infer<typeof auditEventSchema>;

/** A place in the audit log: its size and the wall clock when a process was spawned. */
interface AuditMark {
  file: string;
  offset: number;
  atMs: number;
}

const markAudit = (file: string): AuditMark => ({ file, offset: statSync(file).size, atMs: Date.now() });

/** The cluster's own components, whose requests are never ours. */
const CLUSTER_AGENTS = /^(kube-|kwok)/;

/**
 * The first request after `audit` from a user agent that `ours` accepts, and the first ConfigMaps
 * list or watch among them, from the API server's audit log. Read once the process is ready, so
 * that reading it does not take CPU from the start it times.
 */
async function firstRequests(
  audit: AuditMark,
  ours: (userAgent: string) => boolean,
): Promise<{ firstMs: number; listMs: number; userAgent: string }> {
  const sinceMs = audit.atMs;
  return waitFor(
    'the first ConfigMaps list in the audit log',
    async () => {
      let first: AuditEvent | undefined;
      const text = readFileSync(audit.file).subarray(audit.offset).toString('utf8');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const event = auditEventSchema.parse(JSON.parse(line));
        const at = Date.parse(event.requestReceivedTimestamp);
        if (event.stage !== 'RequestReceived' || at < sinceMs || !ours(event.userAgent ?? '')) continue;
        first ??= event;
        if (event.objectRef?.resource === 'configmaps' && (event.verb === 'watch' || event.verb === 'list')) {
          return {
            firstMs: Date.parse(first.requestReceivedTimestamp) - sinceMs,
            listMs: at - sinceMs,
            userAgent: event.userAgent ?? '',
          };
        }
      }
      return undefined;
    },
    LIMIT_MS,
    20,
  );
}

/** Prometheus samples of the agent's /metrics, keyed by name with labels (`name{space="new"}`). */
async function scrape(url: string): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  for (const line of (await (await fetch(url)).text()).split('\n')) {
    const match = /^(\S+) (\S+)$/.exec(line);
    if (match?.[1] !== undefined && !line.startsWith('#')) samples.set(match[1], Number(match[2]));
  }
  return samples;
}

async function measureAgent(
  dir: string,
  kubeconfigPath: string,
  expected: number,
  auditLog: string,
  residency = false,
) {
  const controlPlane = await startBenchControlPlane(dir);
  const stored = storedObjects(controlPlane.plane.store.cache);
  const audit = markAudit(auditLog);
  const started = performance.now();
  const agent = await startAgentProcess({ dir, controlPlane, kubeconfigPath, kinds: ['configMap'] });
  try {
    let storedMs: number | undefined;
    const readyMs = await waitFor(
      `the agent's /readyz (log: ${agent.logFile})`,
      async () => {
        if (storedMs === undefined && stored() >= expected) storedMs = performance.now() - started;
        const ok = (await fetch(`${agent.healthUrl}/readyz`).catch(() => undefined))?.ok;
        return ok ? performance.now() - started : undefined;
      },
      LIMIT_MS,
      10,
    );
    await waitFor(
      'cloudctl to store every ConfigMap',
      async () => (stored() >= expected ? true : undefined),
      LIMIT_MS,
      10,
    );
    storedMs ??= performance.now() - started;
    const first = await firstRequests(audit, (ua) => !CLUSTER_AGENTS.test(ua));
    await sleep(idleMs);
    const map = memoryMap(agent.pid);
    const resident = residency
      ? {
          executable: executableResidency(agent.pid),
          heap: summarizeHeapSnapshot(await (await fetch(`${agent.pprofUrl}/heapsnapshot`)).text()),
        }
      : undefined;
    const metrics = await scrape(agent.metricsUrl);
    const pick = (name: string) => metrics.get(name) ?? Number.NaN;
    const space = (name: string) => pick(`nodejs_heap_space_size_used_bytes{space="${name}"}`);
    const spaceTotal = (name: string) => pick(`nodejs_heap_space_size_total_bytes{space="${name}"}`);
    return {
      userAgent: first.userAgent,
      resident,
      start: {
        firstRequestMs: first.firstMs,
        firstListMs: first.listMs,
        readyMs,
        storedMs,
        rssBytes: map.rssBytes,
        map,
        heap: {
          total: pick('nodejs_heap_size_total_bytes'),
          used: pick('nodejs_heap_size_used_bytes'),
          newTotal: spaceTotal('new'),
          oldUsed: space('old'),
          oldTotal: spaceTotal('old'),
          codeUsed: space('code'),
          external: pick('nodejs_external_memory_bytes'),
        },
      } satisfies Start,
    };
  } finally {
    await agent.stop();
    await controlPlane.close();
  }
}

async function measurePeer(binary: string, kubeconfigPath: string, auditLog: string): Promise<Start> {
  const audit = markAudit(auditLog);
  const started = performance.now();
  const peer = startInformerPeer({ binary, kubeconfig: kubeconfigPath, kinds: ['configmaps'] });
  try {
    await within(peer.synced, LIMIT_MS, 'the client-go informer to sync');
    const readyMs = performance.now() - started;
    const first = await firstRequests(audit, (ua) => ua.startsWith('informer'));
    await sleep(idleMs);
    const map = memoryMap(peer.pid);
    const stats = await peer.stats();
    return {
      firstRequestMs: first.firstMs,
      firstListMs: first.listMs,
      readyMs,
      rssBytes: map.rssBytes,
      map,
      heap: { used: stats.heapAllocBytes, total: stats.heapInuseBytes },
    };
  } finally {
    await peer.stop();
  }
}

// The import probe: a fresh Node process with the agent's flags and environment imports each part
// in turn, in the order bin/orch-agent.js loads them, and reports the time of each import and the
// RSS and V8 heap after a full collection. Run from a string, not a .ts file, so that the probe
// itself does not load Node's TypeScript stripper.
const PROBE_STEPS: ReadonlyArray<readonly [label: string, specifier: string, loadedWhen: string]> = [
  ['slim-client-node.ts (hooks; the first .ts file)', './src/kube/slim-client-node.ts', 'always'],
  ['slim-undici.ts (hooks)', './src/kube/slim-undici.ts', 'always'],
  ['slim-zod.ts (hooks)', './src/agent/config/slim-zod.ts', 'always'],
  ['zod', 'zod', 'always'],
  ['prom-client', 'prom-client', 'always'],
  ['undici (npm; its dispatchers and request, undici-core.ts)', 'undici', 'always'],
  ['@grpc/grpc-js', '@grpc/grpc-js', 'always'],
  ['@grpc/proto-loader', '@grpc/proto-loader', 'always'],
  ['pino', 'pino', 'always'],
  ['pino-pretty', 'pino-pretty', 'text logs (the default)'],
  ['pino-roll', 'pino-roll', 'logging.file'],
  ['js-yaml', 'js-yaml', 'always'],
  ['@kubernetes/client-node config.js (the rest of it)', '@kubernetes/client-node/dist/config.js', 'always'],
  ['the rest of the agent (src/agent/cli/run-cli.ts)', './src/agent/cli/run-cli.ts', 'always'],
];

const PROBE_SOURCE = `
const { pathToFileURL } = await import('node:url');
const root = pathToFileURL(process.cwd() + '/');
const settle = () => { gc(); gc(); const m = process.memoryUsage(); return { rss: m.rss, heap: m.heapUsed, committed: m.heapTotal }; };
let before = settle();
console.log(JSON.stringify({ step: 'node', ms: 0, ...before }));
for (const specifier of JSON.parse(process.env.PROBE_STEPS)) {
  const t = performance.now();
  await import(specifier.startsWith('.') ? new URL(specifier, root).href : specifier);
  const ms = performance.now() - t;
  const after = settle();
  console.log(JSON.stringify({ step: specifier, ms, rss: after.rss - before.rss, heap: after.heap - before.heap, committed: after.committed - before.committed }));
  before = after;
}
console.log(JSON.stringify({ step: 'total', ms: 0, ...before }));
`;

const probeLineSchema = z.object({
  step: z.string(),
  ms: z.number(),
  rss: z.number(),
  heap: z.number(),
  committed: z.number(),
});
type ProbeLine = z.infer<typeof probeLineSchema>;

async function probeOnce(cacheDir: string): Promise<ProbeLine[]> {
  const child = spawn(
    process.execPath,
    [...AGENT_NODE_FLAGS, '--expose-gc', '--input-type=module', '-e', PROBE_SOURCE],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...AGENT_ENV,
        NODE_COMPILE_CACHE: cacheDir,
        PROBE_STEPS: JSON.stringify(PROBE_STEPS.map(([, specifier]) => specifier)),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the import probe exited with code ${code}`);
  return out
    .trim()
    .split('\n')
    .map((line) => probeLineSchema.parse(JSON.parse(line)));
}

/** Medians per step over `probeRuns` processes, each on a fresh (cold) and then a reused (warm) cache. */
async function importProbe(): Promise<string> {
  const cold: ProbeLine[][] = [];
  const warm: ProbeLine[][] = [];
  for (let run = 0; run < probeRuns; run++) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'orch-agent-probe-cache-'));
    try {
      cold.push(await probeOnce(cacheDir));
      warm.push(await probeOnce(cacheDir));
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }
  const at = (runs: ProbeLine[][], i: number, pick: (l: ProbeLine) => number) =>
    median(runs.map((lines) => pick(lines[i] as ProbeLine)));
  const steps = [['bare node', '', ''], ...PROBE_STEPS, ['all of the above', '', '']] as const;
  const rows = steps.map(([label, , loadedWhen], i) => {
    const first = i === 0 || i === PROBE_STEPS.length + 1;
    const cells = [cold, warm].flatMap((runs) => [
      fixed(mib(at(runs, i, (l) => l.rss)), 1),
      fixed(mib(at(runs, i, (l) => l.committed)), 1),
      fixed(mib(at(runs, i, (l) => l.heap)), 1),
      first
        ? ''
        : fixed(
            at(runs, i, (l) => l.ms),
            0,
          ),
    ]);
    return [label, loadedWhen, ...cells];
  });
  return [
    `### What each part costs when loaded (imported in turn; median of ${probeRuns} processes)`,
    '',
    table(
      [
        'part',
        'the agent loads it',
        'cold: +RSS',
        '+V8 heap committed',
        '+V8 heap used',
        'cold: ms',
        'warm: +RSS',
        '+V8 heap committed',
        '+V8 heap used',
        'warm: ms',
      ],
      rows,
    ),
    '',
    'MiB, except ms. First and last rows: the whole process. Read after a full collection; V8 grows',
    'its heap (young generation first) in steps, so a step may pay for growth the ones before began.',
  ].join('\n');
}

/** The executable's resident pages of an idle agent, by section and by what the symbols there are. */
function residencyTable(resident: ExecutableResidency): string {
  const rows = resident.sections
    .filter((s) => s.bytes >= 100 * 1024)
    .flatMap(({ section, bytes, groups }) => [
      [section, '', fixed(mib(bytes), 1)],
      ...groups.filter((g) => g.bytes >= 256 * 1024).map((g) => ['', g.name, fixed(mib(g.bytes), 1)]),
    ]);
  return [
    `### The Node executable in the idle agent: ${fixed(mib(resident.totalBytes), 1)} MiB resident (${resident.executable})`,
    '',
    table(['section (0.1 MiB or more)', 'symbols (groups of 0.25 MiB or more)', 'resident, MiB'], rows),
  ].join('\n');
}

/** What the idle agent's V8 heap holds (a snapshot taken after the residency was read). */
function heapTable(heap: HeapSummary): string {
  return [
    `### The idle agent's V8 heap, from a heap snapshot: ${fixed(mib(heap.totalBytes), 1)} MiB`,
    '',
    table(
      ['node type', 'MiB'],
      heap.byType.filter((t) => t.bytes >= 64 * 1024).map((t) => [t.type, fixed(mib(t.bytes), 2)]),
    ),
    '',
    `Strings of 20 KiB or more: ${heap.long.count}, ${fixed(mib(heap.long.bytes), 1)} MiB; the largest:`,
    '',
    table(
      ['KiB', 'starts with'],
      heap.long.largest.map((l) => [
        fixed(l.bytes / 1024, 0),
        `\`${l.start.replaceAll('`', "'").replaceAll('|', '/')}\``,
      ]),
    ),
  ].join('\n');
}

function startTables(agentCold: Start, agent: Start[], peer: Start[]): string {
  const med = (starts: Start[], pick: (s: Start) => number) => median(starts.map(pick));
  const secs = (ms: number) => fixed(ms / 1000, 3);
  const mb = (bytes: number) => fixed(mib(bytes), 1);
  const row = (
    label: string,
    pick: (s: Start) => number,
    unit: (n: number) => string,
    target?: { limit: number; scale: (n: number) => number },
  ) => {
    const ours = med(agent, pick);
    const theirs = med(peer, pick);
    // Go takes its memory by mmap, not from the C heap: a ratio to (nearly) nothing says nothing.
    const comparable = theirs >= 1024 * 1024 || unit !== mb;
    const verdict =
      target === undefined
        ? ''
        : `≤ ${target.limit}: ${target.scale(ours) <= target.limit ? 'met' : 'missed'}`;
    return [
      label,
      unit(pick(agentCold)),
      unit(ours),
      unit(theirs),
      comparable ? ratio(ours, theirs) : '—',
      verdict,
    ];
  };
  const agentOnly = (label: string, pick: (s: Start) => number, unit: (n: number) => string) => [
    label,
    unit(pick(agentCold)),
    unit(med(agent, pick)),
    '',
    '',
    '',
  ];
  const h = (key: string) => (s: Start) => s.heap[key] ?? Number.NaN;
  return [
    `### Start-up and idle memory (${objects} ConfigMaps; median of ${agent.length} warm starts each)`,
    '',
    table(
      [
        'figure',
        'agent, first start (cold cache)',
        'orch-agent',
        'client-go informer',
        'ours/peer',
        'target',
      ],
      [
        row('spawn → first request, s', (s) => s.firstRequestMs, secs),
        row('spawn → first ConfigMaps list, s', (s) => s.firstListMs, secs, {
          limit: TARGET_FIRST_LIST_S,
          scale: (ms) => ms / 1000,
        }),
        row('spawn → ready (synced), s', (s) => s.readyMs, secs),
        agentOnly('spawn → stored by cloudctl, s', (s) => s.storedMs ?? Number.NaN, secs),
        row(`idle RSS (${idleMs / 1000} s after ready), MiB`, (s) => s.rssBytes, mb, {
          limit: TARGET_IDLE_RSS_MIB,
          scale: mib,
        }),
        row('  executable and libraries (file-backed)', (s) => s.map.fileBackedBytes, mb),
        row('  C heap ([heap])', (s) => s.map.cHeapBytes, mb),
        row('  WebAssembly memories (≥ 1 GiB reservations)', (s) => s.map.largeReservationBytes, mb),
        row('  other anonymous (JS/Go heap, stacks, buffers)', (s) => s.map.otherAnonymousBytes, mb),
        row('heap total (V8) / in use (Go), MiB', h('total'), mb),
        row('heap used (V8) / allocated (Go), MiB', h('used'), mb),
        agentOnly('  V8 new space total, MiB', h('newTotal'), mb),
        agentOnly('  V8 old space used, MiB', h('oldUsed'), mb),
        agentOnly('  V8 old space total, MiB', h('oldTotal'), mb),
        agentOnly('  V8 code space used, MiB', h('codeUsed'), mb),
        agentOnly('V8 external memory, MiB', h('external'), mb),
      ],
    ),
  ].join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'orch-agent-footprint-'));
try {
  if (!values['skip-probe']) {
    log(`import probe: ${probeRuns} × (cold, warm)`);
    console.log(`${await importProbe()}\n`);
  }
  if (!values['skip-cluster']) {
    const cluster = await startCluster({ nodes: 1, auditLog: true, log });
    try {
      const auditLog = cluster.auditLogFile;
      if (auditLog === undefined) throw new Error('the cluster has no audit log');
      const binary = await buildInformerPeer();
      await populate(
        { namespaces: 10, configMaps: objects, pods: 0 },
        { client: cluster.client, nodes: [], log },
      );
      const listed = await cluster.client.request('GET', '/api/v1/configmaps');
      const expected = ((listed.json as { items?: unknown[] }).items ?? []).length;
      // Its own compile cache, empty at first: the first start is what a pod with a fresh /tmp sees.
      process.env.NODE_COMPILE_CACHE = join(dir, 'compile-cache');
      if (values['cpu-prof'] !== undefined)
        process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${values['cpu-prof']} --cpu-prof-interval=500`;
      const agent: Start[] = [];
      const peer: Start[] = [];
      let agentCold: Start | undefined;
      let residency: { executable: ExecutableResidency; heap: HeapSummary } | undefined;
      for (let rep = 0; rep <= reps; rep++) {
        const measured = await measureAgent(
          dir,
          cluster.kubeconfigPath,
          expected,
          auditLog,
          values.residency && rep === reps,
        );
        if (measured.resident !== undefined) residency = measured.resident;
        log(
          `rep ${rep}${rep === 0 ? ' (cold cache)' : ''}: agent first list ${measured.start.firstListMs} ms, ready ${measured.start.readyMs.toFixed(0)} ms, idle RSS ${mib(measured.start.rssBytes).toFixed(1)} MiB (user agent ${measured.userAgent})`,
        );
        if (rep === 0) {
          agentCold = measured.start;
          continue;
        }
        agent.push(measured.start);
        const informer = await measurePeer(binary, cluster.kubeconfigPath, auditLog);
        peer.push(informer);
        log(
          `rep ${rep}: informer first list ${informer.firstListMs} ms, synced ${informer.readyMs.toFixed(0)} ms, idle RSS ${mib(informer.rssBytes).toFixed(1)} MiB`,
        );
      }
      if (agentCold === undefined) throw new Error('no runs');
      console.log(startTables(agentCold, agent, peer));
      if (residency !== undefined)
        console.log(`\n${residencyTable(residency.executable)}\n\n${heapTable(residency.heap)}`);
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
