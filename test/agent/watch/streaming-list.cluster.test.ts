// Streaming lists (scope-watcher.ts): where the API server serves them, a scope's list is one watch
// with `sendInitialEvents`, sent up as a snapshot that ends at the `k8s.io/initial-events-end`
// bookmark, and the same watch goes on with later changes; its task-budget slot is free once the
// list is. An API server without them (WatchList off) refuses the request, and the scope lists by
// pages instead. ScopeWatchers are driven directly against real API servers: the shared cluster,
// and one started here with `--feature-gates=WatchList=false`; the servers' answers are counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheItem } from '../../../src/agent/watch/cache-item.ts';
import { TaskBudget } from '../../../src/agent/watch/index.ts';
import { KubeHttp, type KubeVerb } from '../../../src/kube/index.ts';
import {
  type ApiClient,
  type Cluster,
  sharedCluster,
  sharedClusterClient,
  startCluster,
} from '../../cluster/index.ts';
import {
  configMapScopeWatcher,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  ROOT_CA,
  tokenKubeConfig,
  whileWatching,
} from './watch-fixture.ts';

const NS = 'streaming-list';
const OTHER_NS = 'streaming-list-other';
let old: Cluster;
let admin: ApiClient;

beforeAll(async () => {
  admin = sharedClusterClient();
  await Promise.all([createNamespace(admin, NS, ['a', 'b', 'c']), createNamespace(admin, OTHER_NS, ['d'])]);
  old = await startCluster({ featureGates: 'WatchList=false', nodes: 0 });
  await createNamespace(old.client, NS, ['a', 'b', 'c']);
}, 120_000);

afterAll(async () => {
  await Promise.all([NS, OTHER_NS].map((ns) => deleteObject(admin, `/api/v1/namespaces/${ns}`)));
  await admin?.close();
  await old?.stop();
});

interface Server {
  server: string;
  caFile: string;
  adminToken: string;
}

/** A ScopeWatcher on the ConfigMaps of `namespace`, with everything it reports collected. */
function configMapWatcher(target: Server, namespace: string, budget: TaskBudget) {
  const kc = tokenKubeConfig(target.server, target.caFile, target.adminToken);
  const answered: Array<{ verb: KubeVerb; code: number }> = [];
  const http = new KubeHttp(kc, target.server, { onResponse: (verb, code) => answered.push({ verb, code }) });
  const { watcher, buffer, methods, refusals } = configMapScopeWatcher(http, 'streaming', namespace, budget);
  const items: CacheItem[] = [];
  const drain = () => {
    items.push(...buffer.takeNow(1000));
    return items;
  };
  return { watcher, answered, methods, refusals, drain };
}

/**
 * The names of the events with `snapshotId`, without the controller manager's CA ConfigMap, which
 * it adds to a new namespace a moment after it is created (before or after a list).
 */
const eventNames = (items: readonly CacheItem[], snapshotId: string) =>
  items.flatMap((item) =>
    item.type === 'event' && item.snapshotId === snapshotId && item.name !== ROOT_CA ? [item.name] : [],
  );

/** The snapshot's begin and end, and the names it holds; fails unless there is exactly one. */
function snapshotOf(items: readonly CacheItem[]) {
  const begins = items.filter((item) => item.type === 'snapshotBegin');
  const ends = items.filter((item) => item.type === 'snapshotEnd');
  expect(begins).toHaveLength(1);
  expect(ends).toHaveLength(1);
  const [begin, end] = [begins[0], ends[0]];
  if (begin?.type !== 'snapshotBegin' || end?.type !== 'snapshotEnd') throw new Error('no snapshot');
  expect(end.snapshotId).toBe(begin.snapshotId);
  expect(items.indexOf(end)).toBeGreaterThan(items.indexOf(begin));
  return { end, names: eventNames(items, begin.snapshotId).sort() };
}

describe('streaming lists', () => {
  it('where served: one watch lists the scope as a snapshot ending at the initial-events-end bookmark, then carries later changes; its budget slot is free once listed', async () => {
    // One list at a time for the account: the second scope can list only if the first one's slot
    // was given back at its end bookmark, while its watch stays open.
    const budget = new TaskBudget({ totalBudget: 0, budgetPerAccount: 1, queueCheckFrequencyMs: 50 });
    const first = configMapWatcher(sharedCluster(), NS, budget);
    const second = configMapWatcher(sharedCluster(), OTHER_NS, budget);
    const stop = new AbortController();
    const running = [first.watcher.run(stop.signal)];
    try {
      await msUntil('the first scope listed', () => first.methods.length === 1, 20_000);
      running.push(second.watcher.run(stop.signal));
      await msUntil(
        'the second scope listed while the first watches',
        () => second.methods.length === 1,
        20_000,
      );

      const { end, names } = snapshotOf(first.drain());
      expect(names).toEqual(['a', 'b', 'c']);
      for (const item of first.drain())
        if (item.type === 'event')
          expect(Number(item.resourceVersion)).toBeLessThanOrEqual(Number(end.resourceVersion));
      expect(snapshotOf(second.drain()).names).toEqual(['d']);

      await createConfigMap(admin, NS, 'later');
      await msUntil(
        'the change made after the list',
        () => eventNames(first.drain(), '').includes('later'),
        20_000,
      );
    } finally {
      stop.abort();
      await Promise.all(running);
    }
    expect(first.methods).toEqual(['stream']);
    expect(first.refusals).toEqual([]);
    // No list request at all; the streaming list's watch is the one that carried the later change.
    expect(first.answered.map(({ verb, code }) => `${verb} ${code}`)).toEqual(['watch 200']);
    expect(budget.peak).toBe(1);
  });

  it('an API server without them (WatchList=false) refuses the streaming list; the scope lists by pages, and later changes arrive', async () => {
    const budget = new TaskBudget({ totalBudget: 0, budgetPerAccount: 0, queueCheckFrequencyMs: 50 });
    const scope = configMapWatcher(old, NS, budget);
    await whileWatching(scope.watcher, async () => {
      await msUntil('listed', () => scope.methods.length === 1, 20_000);
      expect(snapshotOf(scope.drain()).names).toEqual(['a', 'b', 'c']);
      await createConfigMap(old.client, NS, 'later');
      await msUntil(
        'the change made after the list',
        () => eventNames(scope.drain(), '').includes('later'),
        20_000,
      );
    });
    expect(scope.methods).toEqual(['pages']);
    expect(scope.refusals).toEqual([expect.stringContaining('sendInitialEvents')]);
    const [refused, list, watch] = scope.answered;
    expect(refused?.verb).toBe('watch');
    expect([400, 422]).toContain(refused?.code);
    expect(list).toEqual({ verb: 'list', code: 200 });
    expect(watch).toEqual({ verb: 'watch', code: 200 });
  });
});
