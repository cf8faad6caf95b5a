// The client-go informer peer (bench/peers/informer) as a child process: builds it once
// (go-peer-build.ts) and drives its line protocol (JSON reports on stdout; `stats`, `gc` and `apply`
// commands on stdin).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { buildGoPeer } from './go-peer-build.ts';

const MODULE_DIR = fileURLToPath(new URL('./informer/', import.meta.url));
const MODULE_INPUTS = ['go.mod', 'go.sum', 'main.go', 'apply.go'] as const;
/** How much of the peer's stderr an error carries. */
const STDERR_TAIL_LINES = 20;

const syncedReportSchema = z.object({
  event: z.literal('synced'),
  /** From the peer's process start to every informer's cache being synced. */
  ms: z.number(),
  objects: z.number().int(),
  heapAllocBytes: z.number().int(),
  heapInuseBytes: z.number().int(),
});

const statsReportSchema = z.object({
  event: z.literal('stats'),
  /** Latency samples since the previous `stats`; the percentiles are 0 when there are none. */
  count: z.number().int(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  maxMs: z.number(),
  heapAllocBytes: z.number().int(),
  heapInuseBytes: z.number().int(),
  objects: z.number().int(),
});

/** One `apply`: the objects applied and how long that took, or why it failed. */
const appliedReportSchema = z.object({
  event: z.literal('applied'),
  ms: z.number().optional(),
  objects: z.number().int().optional(),
  error: z.string().optional(),
});

const peerLineSchema = z.discriminatedUnion('event', [
  syncedReportSchema,
  statsReportSchema,
  appliedReportSchema,
  z.object({ event: z.literal('gc') }),
]);

export type SyncedReport = z.infer<typeof syncedReportSchema>;
export type StatsReport = z.infer<typeof statsReportSchema>;
type PeerLine = z.infer<typeof peerLineSchema>;

/** The peer's binary, built on first use; later calls with unchanged sources do not run Go. */
export function buildInformerPeer(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return buildGoPeer({ name: 'informer', dir: MODULE_DIR, inputs: MODULE_INPUTS }, env);
}

export interface InformerPeerOptions {
  readonly binary: string;
  readonly kubeconfig: string;
  /**
   * Kinds to hold in informers, plural and lower case (`configmaps`, `pods`, `deployments`, ...; see
   * main.go); none for a peer that only applies.
   */
  readonly kinds: readonly string[];
  /** Independent sets of informers, one clientset and factory each (default 1), as for agent accounts. */
  readonly accounts?: number;
  /** ConfigMap data key holding the write time in epoch milliseconds; the peer defaults to `bench-ts`. */
  readonly latencyKey?: string;
  /** Namespaces every account informs on, one factory each (default: every namespace). */
  readonly namespaces?: readonly string[];
  /** Each account's own namespace besides those: a Go format of its index, such as `load-acct-%03d`. */
  readonly ownNamespace?: string;
}

export interface InformerPeer {
  readonly pid: number;
  /** Resolves on the peer's first report; rejects, with its stderr tail, if it exits before. */
  readonly synced: Promise<SyncedReport>;
  /** Latency percentiles since the previous call, and the heap as it is (no forced GC). */
  stats(): Promise<StatsReport>;
  /** Forces a Go GC, so that the next `stats` reads a steady heap. */
  gc(): Promise<void>;
  /**
   * Server-side applies `objects` one after another, in order, from the peer's warm client (field
   * manager `bench-go`, force); resolves with the milliseconds the peer timed, rejects with its error.
   */
  apply(objects: readonly object[]): Promise<number>;
  /** Ends the peer and resolves once it has exited. */
  stop(): Promise<void>;
}

interface Pending {
  readonly event: PeerLine['event'];
  readonly resolve: (line: PeerLine) => void;
  readonly reject: (error: Error) => void;
}

export function startInformerPeer(opts: InformerPeerOptions): InformerPeer {
  const args = ['--kubeconfig', opts.kubeconfig, '--kinds', opts.kinds.join(',')];
  if (opts.latencyKey !== undefined) args.push('--latency-key', opts.latencyKey);
  if (opts.accounts !== undefined) args.push('--accounts', String(opts.accounts));
  if (opts.namespaces !== undefined) args.push('--namespaces', opts.namespaces.join(','));
  if (opts.ownNamespace !== undefined) args.push('--own-namespace', opts.ownNamespace);
  const child = spawn(opts.binary, args, { stdio: 'pipe' });
  // A failed spawn leaves no pid and emits 'error' later; without a listener that would crash us.
  child.once('error', () => {});
  if (child.pid === undefined) throw new Error(`cannot start ${opts.binary}: not found or not executable`);
  const pid = child.pid;

  const stderrTail: string[] = [];
  const keepStderr = (line: string) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
  };
  createInterface({ input: child.stderr }).on('line', keepStderr);
  // A write racing the peer's exit fails with EPIPE; the exit itself is reported through `exited`.
  child.stdin.on('error', () => {});

  // Replies come in the order the commands were sent, so a queue pairs them.
  const pending: Pending[] = [];
  let exitError: Error | undefined;
  const expect = (event: PeerLine['event']): Promise<PeerLine> =>
    exitError !== undefined
      ? Promise.reject(exitError)
      : new Promise((resolve, reject) => pending.push({ event, resolve, reject }));
  const synced = expect('synced').then((line) => syncedReportSchema.parse(line));
  // Unobserved if the caller stops the peer before it syncs; that must not crash the process.
  synced.catch(() => {});

  createInterface({ input: child.stdout }).on('line', (text) => {
    const next = pending.shift();
    // The peer prints only answers; a line nobody asked for is kept with stderr for the next error.
    if (next === undefined) {
      keepStderr(`unsolicited stdout: ${text}`);
      return;
    }
    let line: PeerLine;
    try {
      line = peerLineSchema.parse(JSON.parse(text));
    } catch (error) {
      next.reject(new Error(`informer peer printed an unexpected line: ${text}`, { cause: error }));
      return;
    }
    if (line.event !== next.event) {
      next.reject(new Error(`informer peer answered ${line.event}, expected ${next.event}`));
      return;
    }
    next.resolve(line);
  });

  const exited = new Promise<void>((resolve) => {
    // 'close' comes after stdout has ended, so every report line has been handled by then.
    child.once('close', (code, signal) => {
      const how = signal !== null ? `signal ${signal}` : `code ${code}`;
      exitError = new Error(`informer peer ${pid} exited (${how}); stderr:\n${stderrTail.join('\n')}`);
      for (const p of pending.splice(0)) p.reject(exitError);
      resolve();
    });
  });

  const command = (name: 'stats' | 'gc' | 'applied', line: string = name): Promise<PeerLine> => {
    const reply = expect(name);
    child.stdin.write(`${line}\n`);
    return reply;
  };

  return {
    pid,
    synced,
    stats: async () => statsReportSchema.parse(await command('stats')),
    gc: async () => {
      await command('gc');
    },
    apply: async (objects) => {
      // JSON.stringify escapes newlines inside strings, so the array stays on one line.
      const report = appliedReportSchema.parse(await command('applied', `apply ${JSON.stringify(objects)}`));
      if (report.error !== undefined || report.ms === undefined) {
        throw new Error(`the Go client's apply failed: ${report.error ?? 'no time reported'}`);
      }
      return report.ms;
    },
    stop: async () => {
      if (exitError === undefined) {
        // Each of the two ends the peer, mid-sync too; sending both costs nothing.
        child.stdin.end();
        child.kill('SIGTERM');
      }
      await exited;
    },
  };
}
