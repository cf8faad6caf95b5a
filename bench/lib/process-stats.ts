// What a process costs, read from /proc the same way for every process a benchmark compares (Node
// agent, Go informer), so that no figure depends on what a program says of itself.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { procStatus, statusBytes } from '../../test/support/proc-status.ts';

export interface ProcessStats {
  /** Resident set size now (VmRSS). */
  rssBytes: number;
  /** The highest resident set size so far (VmHWM). */
  peakRssBytes: number;
  /** User plus system CPU time so far. */
  cpuSeconds: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return ticksPerSecond;
}

export function processStats(pid: number): ProcessStats {
  const status = procStatus(pid);
  // The command name (field 2) may hold spaces: the numeric fields start after its closing paren.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return {
    rssBytes: statusBytes(status, 'VmRSS'),
    peakRssBytes: statusBytes(status, 'VmHWM'),
    cpuSeconds: (utime + stime) / clockTicks(),
  };
}

/**
 * Sets the process's VmHWM back to its RSS now (Linux's `clear_refs` 5), so that a later peak covers
 * only what follows: a server's start-up peak is not what the load after it costs.
 */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU seconds of a server that forks a process per connection (PostgreSQL): the parent's own, its
 * exited children's (cutime, cstime) and its live children's.
 */
export function processTreeCpuSeconds(pid: number): number {
  const own = statFields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // It exited while we read: its time is now in the parent's cutime.
    }
  }
  return ticks / clockTicks();
}

/** The process and its live children (PostgreSQL's backends): pids, the parent first. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === pid) tree.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return tree;
}

/**
 * The memory of a server that forks a process per connection (PostgreSQL): the proportional set
 * size (Pss) of the parent and its children added, so the shared buffers every backend maps count
 * once, not once per backend as their RSS would.
 */
export function processTreePssBytes(pid: number): number {
  let kb = 0;
  for (const member of processTree(pid)) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${member}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // Exited while we read: its memory is freed.
    }
  }
  return kb * 1024;
}

/** The first process whose arguments `match`. */
export function findProcess(match: (args: readonly string[]) => boolean): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (match(args)) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** Open sockets of a process (TCP connections and listeners, Unix sockets), from its descriptors. */
export function socketCount(pid: number): number {
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // Closed meanwhile.
    }
  }
  return sockets;
}

/**
 * CPU seconds used so far by the PostgreSQL server listening on `databaseUrl`'s port (its postmaster
 * and every backend); 0 without a server (PGlite runs inside cloudctl's process: its CPU is cloudctl's).
 */
export function postgresCpuSeconds(databaseUrl: string | undefined): () => number {
  const postmaster = postgresPid(databaseUrl);
  return () => (postmaster === undefined ? 0 : processTreeCpuSeconds(postmaster));
}

/** The pid of the PostgreSQL server (its postmaster) listening on `databaseUrl`'s port. */
export function postgresPid(databaseUrl: string | undefined): number | undefined {
  const port = databaseUrl === undefined ? undefined : new URL(databaseUrl).port;
  return port === undefined
    ? undefined
    : findProcess((args) => args[0]?.endsWith('/postgres') === true && args.includes(port));
}
