// The stored path's floor (bench/peers/floor) as a child process: a Go program that lists the kinds
// the agent watches by pages and streams them into PostgreSQL with COPY, pipelined. Built once
// (go-peer-build.ts); it reports one line on stdout when every row is committed, then idles until
// stopped, so its memory and CPU can be read at the same moment as the other sides'.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { buildGoPeer } from './go-peer-build.ts';

const MODULE_DIR = fileURLToPath(new URL('./floor/', import.meta.url));
const MODULE_INPUTS = ['go.mod', 'go.sum', 'main.go'] as const;
/** How much of the peer's stderr an error carries. */
const STDERR_TAIL_LINES = 20;

const storedReportSchema = z.object({
  event: z.literal('synced'),
  /** From the peer's process start to the last COPY committed. */
  ms: z.number(),
  /** Rows committed. */
  objects: z.number().int(),
});

export type StoredReport = z.infer<typeof storedReportSchema>;

/** The floor's binary, built on first use; later calls with unchanged sources do not run Go. */
export function buildFloorPeer(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return buildGoPeer({ name: 'floor', dir: MODULE_DIR, inputs: MODULE_INPUTS }, env);
}

export interface FloorPeerOptions {
  readonly binary: string;
  readonly kubeconfig: string;
  /** The PostgreSQL server to store into; the peer creates its table there. */
  readonly databaseUrl: string;
  /** Kinds, plural and lower case, as the informer peer takes them (`configmaps`, `pods`). */
  readonly kinds: readonly string[];
}

export interface FloorPeer {
  readonly pid: number;
  /** Resolves once every object is committed; rejects, with its stderr tail, if it exits before. */
  readonly stored: Promise<StoredReport>;
  /** Ends the peer and resolves once it has exited. */
  stop(): Promise<void>;
}

export function startFloorPeer(opts: FloorPeerOptions): FloorPeer {
  const args = [
    '--kubeconfig',
    opts.kubeconfig,
    '--database',
    opts.databaseUrl,
    '--kinds',
    opts.kinds.join(','),
  ];
  const child = spawn(opts.binary, args, { stdio: 'pipe' });
  // A failed spawn leaves no pid and emits 'error' later; without a listener that would crash us.
  child.once('error', () => {});
  if (child.pid === undefined) throw new Error(`cannot start ${opts.binary}: not found or not executable`);
  const pid = child.pid;
  const stderrTail: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
  });
  // A write racing the peer's exit fails with EPIPE; the exit itself rejects `stored`.
  child.stdin.on('error', () => {});

  let exited = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stored = new Promise<StoredReport>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (text) => {
      try {
        resolve(storedReportSchema.parse(JSON.parse(text)));
      } catch (error) {
        reject(new Error(`floor peer printed an unexpected line: ${text}`, { cause: error }));
      }
    });
    child.once('close', (code, signal) => {
      exited = true;
      const how = signal !== null ? `signal ${signal}` : `code ${code}`;
      // After a report this rejects nothing: a promise settles once.
      reject(new Error(`floor peer ${pid} exited (${how}); stderr:\n${stderrTail.join('\n')}`));
    });
  });
  // Unobserved if the caller stops the peer before it stores everything; that must not crash us.
  stored.catch(() => {});

  return {
    pid,
    stored,
    stop: async () => {
      if (!exited) {
        // Either ends the peer, mid-sync too.
        child.stdin.end();
        child.kill('SIGTERM');
      }
      await closed;
    },
  };
}
