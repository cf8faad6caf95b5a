// An account whose first discovery fails is watched once the API server answers again: the agent
// reaches the shared cluster through a TCP proxy that refuses every connection (a real partition), so
// discovering the account's kinds fails after its request retries; the watcher's start resolves
// anyway, says why, and keeps trying with the watch restart backoff. Once the proxy heals, the scopes
// start and the account's objects reach the buffer. Before, start rejected and nothing tried again:
// the account stayed registered with no watch until the agent reconnected.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { AccountWatcher } from '../../../src/agent/watch/account-watcher.ts';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';
import type { WatchObserver } from '../../../src/agent/watch/index.ts';
import { TaskBudget, WatchRegistry } from '../../../src/agent/watch/index.ts';
import { sharedCluster } from '../../cluster/index.ts';
import { writeKubeconfig } from '../../cluster/kubeconfig.ts';
import { startTcpFaultProxy, type TcpFaultProxy } from '../../support/tcp-fault-proxy.ts';
import { accountCluster } from '../operations/operation-fixture.ts';

const ignored = () => undefined;
const observer: WatchObserver = {
  listed: ignored,
  streamingListRefused: ignored,
  streamingListFailed: ignored,
  resumed: ignored,
  restarted: ignored,
  failed: ignored,
  inFlight: ignored,
  acknowledged: ignored,
  publishFailed: ignored,
};

let dir: string;
let proxy: TcpFaultProxy;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'account-start-retry-'));
  const cluster = sharedCluster();
  const server = new URL(cluster.server);
  proxy = await startTcpFaultProxy({ host: server.hostname, port: Number(server.port) });
});

afterAll(async () => {
  await proxy?.close();
  await rm(dir, { recursive: true, force: true });
});

it('keeps starting an account whose discovery failed until the API server answers, then watches it', async () => {
  const cluster = sharedCluster();
  const kubeconfig = join(dir, 'kubeconfig');
  // The API server's certificate names 127.0.0.1, so TLS holds through the proxy's port.
  await writeKubeconfig(kubeconfig, {
    server: `https://${proxy.address}`,
    ca: cluster.ca,
    token: cluster.adminToken,
    name: 'through-proxy',
  });
  const account = await accountCluster(kubeconfig, '  retries:\n    maxRetries: 1\n    backOffMs: 10\n');
  const failures: unknown[] = [];
  const buffer = new CoalescingBuffer(100_000);
  const watcher = new AccountWatcher({
    cluster: account,
    buffer,
    budget: new TaskBudget({ totalBudget: 4, budgetPerAccount: 4, queueCheckFrequencyMs: 50 }),
    registry: new WatchRegistry(() => new Date()),
    resume: new Map(),
    backoff: { initialDelayMs: 200, multiplier: 2, jitter: 0, maxDelayMs: 1000 },
    observer,
    onError: (_scope, error) => failures.push(error),
  });
  proxy.partition();
  try {
    await watcher.start();
    expect(failures.length).toBe(1);
    expect(watcher.scopeCount()).toBe(0);
    // Still refused: the retries fail too, and start nothing.
    await vi.waitFor(() => expect(failures.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(watcher.scopeCount()).toBe(0);
    expect(buffer.size).toBe(0);

    proxy.heal();
    await vi.waitFor(() => expect(watcher.scopeCount()).toBeGreaterThan(0), { timeout: 20_000 });
    await vi.waitFor(() => expect(buffer.size).toBeGreaterThan(0), { timeout: 20_000 });
  } finally {
    await watcher.stop();
  }
  const failuresAtStop = failures.length;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(failures.length).toBe(failuresAtStop);
}, 90_000);
