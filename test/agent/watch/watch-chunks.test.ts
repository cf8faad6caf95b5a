// A watch stream is read a chunk at a time, and a chunk holds as many events as the API server wrote
// into it (kube-http.ts yields them together). When a streaming list's end bookmark shares its chunk
// with the first changes after it, those changes belong to the watch that goes on: none may be lost
// or taken into the snapshot. The API server here is an HTTP server over a real socket that writes the
// whole answer as one chunk, as a busy API server does; the real one cannot be made to.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheItem } from '../../../src/agent/watch/cache-item.ts';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';
import { TaskBudget, WatchRegistry } from '../../../src/agent/watch/index.ts';
import { ScopeWatcher } from '../../../src/agent/watch/scope-watcher.ts';
import { KubeHttp } from '../../../src/kube/index.ts';
import { CONFIG_MAPS, msUntil, recordingObserver } from './watch-fixture.ts';

const configMap = (name: string, resourceVersion: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'chunks', resourceVersion, uid: `uid-${name}` },
  data: { key: name },
});

/** The streaming list's answer: two objects, the end bookmark, then two changes, in one write. */
const ONE_CHUNK = [
  { type: 'ADDED', object: configMap('a', '10') },
  { type: 'ADDED', object: configMap('b', '11') },
  {
    type: 'BOOKMARK',
    object: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } },
    },
  },
  { type: 'MODIFIED', object: configMap('a', '13') },
  { type: 'ADDED', object: configMap('c', '14') },
]
  .map((event) => `${JSON.stringify(event)}\n`)
  .join('');

let server: Server;
let url: string;
const watchRequests: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    watchRequests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' });
    // The first watch (the streaming list) gets everything at once and stays open; any later one
    // (which a lost change would not bring back) stays open and silent.
    if (watchRequests.length === 1) response.write(ONE_CHUNK);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a watch chunk holding the end of a streaming list and the changes after it', () => {
  it('sends the objects before the bookmark as the snapshot and those after it as the watch’s changes', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      // client-node refuses plain HTTP unless TLS verification is off; there is no TLS to verify.
      clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const buffer = new CoalescingBuffer(1000);
    const watcher = new ScopeWatcher({
      http: new KubeHttp(kc, url),
      resource: CONFIG_MAPS,
      scope: { account: 'chunks', group: '', kind: 'ConfigMap', namespace: 'chunks' },
      buffer,
      budget: new TaskBudget({ totalBudget: 0, budgetPerAccount: 1, queueCheckFrequencyMs: 50 }),
      budgetEveryList: true,
      registry: new WatchRegistry(() => new Date()),
      observer: recordingObserver().observer,
      backoff: { initialDelayMs: 100, multiplier: 1.5, jitter: 0, maxDelayMs: 500 },
    });
    const controller = new AbortController();
    const running = watcher.run(controller.signal);
    const items: CacheItem[] = [];
    try {
      await msUntil(
        'the change after the bookmark',
        () => {
          items.push(...buffer.takeNow(1000));
          return items.some((item) => item.type === 'event' && item.name === 'c');
        },
        10_000,
      );
    } finally {
      controller.abort();
      await running.catch(() => undefined);
    }
    const seen = items.map((item) =>
      item.type === 'event'
        ? `${item.event} ${item.name}@${item.resourceVersion} ${item.snapshotId === '' ? 'watch' : 'snapshot'}`
        : item.type,
    );
    // The buffer coalesces by object: `a`'s change replaces its snapshot entry only if both were
    // still unsent, which is why items are taken while they come; either way `c` and `a@13` must be
    // there, and as changes of the watch, not of the snapshot.
    expect(seen).toContain('snapshotBegin');
    expect(seen).toContain('snapshotEnd');
    expect(seen).toContain('ADDED b@11 snapshot');
    expect(seen).toContain('MODIFIED a@13 watch');
    expect(seen).toContain('ADDED c@14 watch');
    expect(seen.indexOf('ADDED c@14 watch')).toBeGreaterThan(seen.indexOf('snapshotEnd'));
    expect(watchRequests).toHaveLength(1);
  });
});
