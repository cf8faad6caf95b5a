// The two programs as real child processes, as users run them: `cloudctl serve` and `orch-agent run`,
// each from its config file, with its output kept for assertions and failures. Every process is
// stopped (SIGKILL as a last resort) by `stop`, so no test leaves one behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(import.meta.dirname, '../..');

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends the signal and waits for the exit; SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export function startProcess(
  bin: 'cloudctl' | 'orch-agent',
  args: string[],
  env: NodeJS.ProcessEnv = {},
): RunningProcess {
  const child = spawn(process.execPath, [join(ROOT, 'bin', `${bin}.js`), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, 'exit').then(() => child.exitCode);
  return {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM', graceMs = 10_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return child.exitCode;
    },
  };
}

/** Polls `url` until it answers 200; fails with the process's output when it exits or time runs out. */
export async function waitReady(process: RunningProcess, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process.child.exitCode !== null) {
      throw new Error(`exited with ${process.child.exitCode} before ${url} was ready:\n${process.output()}`);
    }
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`${url} not ready within ${timeoutMs} ms:\n${process.output()}`);
    await sleep(100);
  }
}

/** Writes a config file and starts `cloudctl serve` on it; resolves once /ready answers. */
export async function startCloudctl(
  dir: string,
  name: string,
  yaml: string,
  httpPort: number,
): Promise<RunningProcess> {
  const file = join(dir, name);
  await writeFile(file, yaml);
  const cloudctl = startProcess('cloudctl', ['serve', '--config', file]);
  await waitReady(cloudctl, `http://127.0.0.1:${httpPort}/ready`);
  return cloudctl;
}
