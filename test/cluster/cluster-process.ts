// One cluster binary running as a child of this Node process, and the guarantee that it does not
// outlive it. Three layers, because each covers a way of dying the others miss:
// - `stop()` ends the process group (SIGTERM, then SIGKILL after a grace period);
// - an `exit` hook SIGKILLs every group still running when Node exits normally or by an uncaught
//   error, including when a test forgot to stop its cluster;
// - the `reaper` command (test/cluster/tools/cmd/reaper) gives each binary a kernel parent-death
//   signal, which is the only thing that still works when Node itself is killed with SIGKILL.
// Each binary runs in its own session (detached), so a Ctrl-C in a terminal reaches Node alone and
// Node decides the order of shutdown.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessSpec {
  /** Short name used in errors and as the log file's stem: `etcd`, `kube-apiserver`. */
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  /** stdout and stderr are appended here; a file, not a pipe, so a dead Node cannot block a writer. */
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Raised when a cluster process ended while we were waiting for it to become ready. */
export class ProcessExitedError extends Error {
  readonly processName: string;
  readonly log: string;
  constructor(name: string, status: ExitStatus, log: string) {
    super(
      `${name} exited (${status.signal ?? `code ${status.code}`}) before it was ready; last lines of its log:\n${log}`,
    );
    this.name = 'ProcessExitedError';
    this.processName = name;
    this.log = log;
  }
}

/** Process groups still running; the exit hook reads it. Module state because `exit` is process-wide. */
const running = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Only synchronous work runs in an exit listener: a signal per group is all that is needed.
  process.on('exit', () => {
    for (const pgid of running) signalGroup(pgid, 'SIGKILL');
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone, which is what we wanted.
  }
}

export class ClusterProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Settles when the process has exited and been reaped. */
  readonly exited: Promise<ExitStatus>;
  #status: ExitStatus | undefined;

  private constructor(spec: ProcessSpec, child: ChildProcess, pid: number) {
    this.name = spec.name;
    this.pid = pid;
    this.logFile = spec.logFile;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(pid);
        this.#status = { code, signal };
        resolve(this.#status);
      });
    });
  }

  /** Starts `spec.binary` through the reaper; resolves once the process exists. */
  static async start(spec: ProcessSpec, reaper: string): Promise<ClusterProcess> {
    installExitHook();
    const log = openSync(spec.logFile, 'a');
    try {
      const child = spawn(reaper, [String(process.pid), spec.binary, ...spec.args], {
        detached: true,
        stdio: ['ignore', log, log],
        env: spec.env ?? process.env,
      });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () =>
          child.pid === undefined ? reject(new Error('no pid')) : resolve(child.pid),
        );
        child.once('error', (error) =>
          reject(new Error(`cannot start ${spec.name} (${reaper}): ${error.message}`)),
        );
      });
      running.add(pid);
      return new ClusterProcess(spec, child, pid);
    } finally {
      closeSync(log);
    }
  }

  get alive(): boolean {
    return this.#status === undefined;
  }

  /** SIGTERM to the group; SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 5_000): Promise<ExitStatus> {
    if (this.#status !== undefined) return this.#status;
    signalGroup(this.pid, 'SIGTERM');
    const status = await Promise.race([this.exited, sleep(graceMs, undefined)]);
    if (status !== undefined) return status;
    signalGroup(this.pid, 'SIGKILL');
    return this.exited;
  }

  /** SIGKILL to the group, as a crash or the OOM killer ends it: no shutdown of any kind. */
  async kill(): Promise<ExitStatus> {
    if (this.#status !== undefined) return this.#status;
    signalGroup(this.pid, 'SIGKILL');
    return this.exited;
  }

  /** The last lines the process wrote, for error messages. */
  async logTail(lines = 30): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** `until`, but a process that never gets ready is stopped before the error is thrown. */
  async ready<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    try {
      return await this.until(what, check, timeoutMs);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Resolves with `check()`'s first defined value; fails at once if the process exits meanwhile. */
  async until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    let lastError = '';
    for (;;) {
      if (this.#status !== undefined)
        throw new ProcessExitedError(this.name, this.#status, await this.logTail());
      try {
        const value = await check();
        if (value !== undefined) return value;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      if (performance.now() > deadline) {
        throw new Error(
          `${this.name}: ${what} not reached after ${timeoutMs} ms${lastError ? ` (last error: ${lastError})` : ''}; ` +
            `last lines of ${this.logFile}:\n${await this.logTail()}`,
        );
      }
      await Promise.race([this.exited, sleep(100)]);
    }
  }
}
