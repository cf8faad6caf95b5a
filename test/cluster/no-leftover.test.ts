// No cluster process outlives its owner: not after `stop()`, not when the owning process exits
// without stopping, and not when it is killed with SIGKILL and runs no code at all.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { startCluster } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/cluster-then-wait.ts', import.meta.url));
const Started = z.object({ pids: z.record(z.string(), z.number()), dir: z.string() });

/**
 * `running`, or `ended`: no such process, or a zombie (it has exited; only its new parent, which may
 * be a container's init that never reaps, still has to collect its status).
 */
function state(pid: number): 'running' | 'ended' {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z' ? 'ended' : 'running';
  } catch {
    return 'ended';
  }
}

function running(pids: Record<string, number>): string[] {
  return Object.entries(pids)
    .filter(([, pid]) => state(pid) === 'running')
    .map(([name]) => name);
}

const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'];

/** Starts the fixture runner and reads the pids of the cluster it started. */
async function runnerWithCluster(mode: 'wait' | 'exit') {
  const runner = spawn(process.execPath, [FIXTURE, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => runner.once('exit', () => resolve()));
  const lines = createInterface({ input: runner.stdout });
  for await (const line of lines) return { runner, exited, ...Started.parse(JSON.parse(line)) };
  throw new Error('the fixture runner exited before printing its cluster');
}

describe('cluster processes', () => {
  it('all end on stop()', { timeout: 90_000 }, async () => {
    const cluster = await startCluster({ nodes: 1 });
    const pids = cluster.pids();
    expect(Object.keys(pids).sort()).toEqual([...COMPONENTS].sort());
    expect(running(pids)).toEqual(Object.keys(pids));
    await cluster.stop();
    expect(running(pids)).toEqual([]);
    expect(cluster.pids()).toEqual({});
  });

  it('all end when the runner exits without stopping its cluster', { timeout: 90_000 }, async () => {
    const { exited, pids, dir } = await runnerWithCluster('exit');
    try {
      await exited;
      await vi.waitFor(() => expect(running(pids)).toEqual([]), { timeout: 10_000, interval: 100 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('all end when the runner is killed with SIGKILL', { timeout: 90_000 }, async () => {
    const { runner, exited, pids, dir } = await runnerWithCluster('wait');
    try {
      expect(running(pids).sort()).toEqual([...COMPONENTS].sort());
      runner.kill('SIGKILL');
      await exited;
      await vi.waitFor(() => expect(running(pids)).toEqual([]), { timeout: 10_000, interval: 100 });
    } finally {
      runner.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
