// cloudctl as its own process, as users run it: `cloudctl serve --config FILE` (the bin, a config
// file, the embedded database in a data directory, or a PostgreSQL server). A benchmark that reports
// cloudctl's memory and CPU reads them from /proc like the agent's; in the benchmark's process they
// would include the load generator's. The benchmark then reaches cloudctl only as a client does: the
// HTTP API (tasks, /cache/introspection) and /metrics. It may register several agents (each its own
// id and token), and sample what its heap holds (V8's sampling heap profiler, through its inspector).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hashToken } from '../../src/cloudctl/index.ts';
import { freePort } from '../../test/cluster/free-port.ts';
import { startProcess, waitReady } from '../../test/support/processes.ts';
import { AGENT_ID, type CloudctlEndpoint } from './bench-system.ts';
import { type HeapSamplingSummary, summarizeHeapSampling } from './heap-sampling-summary.ts';
import { connectInspector, type InspectorClient } from './inspector-client.ts';

/** One sample per this many bytes allocated, on average: fine enough for sites of a few MiB. */
const HEAP_SAMPLING_BYTES = 64 * 1024;

/** One agent cloudctl accepts: its id and where it dials, with its token. */
export interface AgentCredential extends CloudctlEndpoint {
  agentId: string;
}

export interface CloudctlProcessOptions {
  /** How many agents to register (ids `bench-agent`, `bench-agent-1`, ...); default 1. */
  agents?: number;
  /** A PostgreSQL server instead of the embedded database. */
  databaseUrl?: string;
}

export interface CloudctlProcess extends CloudctlEndpoint {
  readonly pid: number;
  /** Every agent registered, the first being the one `grpcPort` and `token` name. */
  readonly agents: readonly AgentCredential[];
  /** The HTTP API's origin, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The benchmark user's bearer token, for clients the benchmark runs itself (GET /watch). */
  readonly userToken: string;
  /** The answer to a request as the benchmark's user, parsed by `schema`; throws on any status but 200. */
  request<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>>;
  /**
   * The sum of a metric's samples over all its labels, from /metrics (0 while it has none); throws
   * when cloudctl does not export it, so a renamed metric fails the run instead of stalling it.
   */
  metricSum(name: string): Promise<number>;
  /**
   * Starts V8's sampling heap profiler in the process: what it allocates from now on is sampled,
   * and the samples of what the collector frees are dropped. (A full heap snapshot,
   * HeapProfiler.takeHeapSnapshot or --heapsnapshot-signal, killed cloudctl with SIGSEGV on Node 24.21.)
   */
  startHeapSampling(): Promise<void>;
  /** After a collection, what the samples say the live heap holds (allocated since the start). */
  liveHeapSamples(): Promise<HeapSamplingSummary>;
  stop(): Promise<void>;
}

/** The i-th agent's id: the first keeps the id the other benchmarks' agents use. */
const agentId = (i: number) => (i === 0 ? AGENT_ID : `${AGENT_ID}-${i}`);

export async function startCloudctlProcess(
  dir: string,
  options: CloudctlProcessOptions = {},
): Promise<CloudctlProcess> {
  const userToken = randomBytes(24).toString('hex');
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const agents = Array.from({ length: options.agents ?? 1 }, (_, i) => ({
    agentId: agentId(i),
    grpcPort,
    token: randomBytes(24).toString('hex'),
  }));
  const first = agents[0];
  if (first === undefined) throw new Error('cloudctl needs at least one agent');
  const config = [
    `grpc:\n  host: 127.0.0.1\n  port: ${grpcPort}`,
    `http:\n  host: 127.0.0.1\n  port: ${httpPort}`,
    // A new data directory (or database) per run: every run starts with an empty cache.
    options.databaseUrl === undefined
      ? `database:\n  dataDir: ${join(dir, `cloudctl-data-${randomBytes(4).toString('hex')}`)}`
      : `database:\n  url: ${options.databaseUrl}`,
    'logging:\n  level: warn',
    'agents:',
    ...agents.map((a) => `  - id: ${a.agentId}\n    tokenHash: ${hashToken(a.token)}`),
    // No roles: the benchmark's accounts set no permissions, so any user may read and change them.
    `users:\n  - name: bench\n    tokenHash: ${hashToken(userToken)}`,
    '',
  ].join('\n');
  const file = join(dir, 'cloudctl.yaml');
  await writeFile(file, config);
  // The inspector on loopback, for the sampling heap profile.
  const inspectPort = await freePort();
  let inspector: InspectorClient | undefined;
  const running = startProcess('cloudctl', ['serve', '--config', file], {
    NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}`,
  });
  try {
    await waitReady(running, `http://127.0.0.1:${httpPort}/ready`);
  } catch (error) {
    await running.stop('SIGKILL');
    throw error;
  }
  const { pid } = running.child;
  if (pid === undefined) throw new Error('cloudctl did not start');
  const url = `http://127.0.0.1:${httpPort}`;
  return {
    pid,
    url,
    userToken,
    grpcPort,
    token: first.token,
    agents,
    async request(method, path, schema, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${userToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
      return schema.parse(JSON.parse(text));
    },
    async metricSum(name) {
      const text = await (await fetch(`${url}/metrics`)).text();
      if (!text.includes(`# TYPE ${name} `)) throw new Error(`${url}/metrics has no ${name}`);
      let sum = 0;
      for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
        sum += Number(match[1]);
      return sum;
    },
    async startHeapSampling() {
      inspector ??= await connectInspector(inspectPort);
      await inspector.post('HeapProfiler.enable');
      await inspector.post('HeapProfiler.startSampling', { samplingInterval: HEAP_SAMPLING_BYTES });
    },
    async liveHeapSamples() {
      if (inspector === undefined) throw new Error('cloudctl: heap sampling was not started');
      // Collected first, so the samples left are of what is live.
      await inspector.post('HeapProfiler.collectGarbage');
      return summarizeHeapSampling(
        z.object({ profile: z.unknown() }).parse(await inspector.post('HeapProfiler.getSamplingProfile'))
          .profile,
      );
    },
    async stop() {
      inspector?.close();
      await running.stop();
    },
  };
}
