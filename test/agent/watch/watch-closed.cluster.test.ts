// A watch the API server ends normally (its timeout) is opened again from the last resourceVersion,
// without a list, and the observer is told the restart reason `closed` (scope-watcher.ts), after a
// streaming list (whose watch goes on after the list) and after a paginated one. The
// ScopeWatcher is driven directly against the shared cluster with a 1 s server-side watch timeout
// (the agent's is a randomized 5–10 minutes); the API server's answers are counted by verb.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';
import { TaskBudget, WatchRegistry } from '../../../src/agent/watch/index.ts';
import { ScopeWatcher } from '../../../src/agent/watch/scope-watcher.ts';
import { KubeHttp, type KubeVerb } from '../../../src/kube/index.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  CONFIG_MAPS,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  recordingObserver,
  tokenKubeConfig,
  whileWatching,
} from './watch-fixture.ts';

const NS = 'watch-closed';
let admin: ApiClient;

beforeAll(async () => {
  admin = sharedClusterClient();
  await createNamespace(admin, NS, ['before']);
});

afterAll(async () => {
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('a watch the server closes', () => {
  it.each([
    { method: 'stream', lists: 0 },
    { method: 'pages', lists: 1 },
  ])(
    'after a list by $method: is restarted with reason closed, from the last version without a list, and later events still arrive',
    async ({ method, lists: listRequests }) => {
      const { server, caFile, adminToken } = sharedCluster();
      const kc = tokenKubeConfig(server, caFile, adminToken);
      const answered: KubeVerb[] = [];
      const { observer, lists, methods, restarts } = recordingObserver();
      const buffer = new CoalescingBuffer(1000);
      const watcher = new ScopeWatcher({
        http: new KubeHttp(kc, server, { onResponse: (verb) => answered.push(verb) }),
        resource: CONFIG_MAPS,
        scope: { account: 'closed', group: '', kind: 'ConfigMap', namespace: NS },
        buffer,
        budget: new TaskBudget({ totalBudget: 0, budgetPerAccount: 0, queueCheckFrequencyMs: 100 }),
        budgetEveryList: false,
        registry: new WatchRegistry(() => new Date()),
        observer,
        backoff: { initialDelayMs: 100, multiplier: 1.5, jitter: 0, maxDelayMs: 500 },
        watchTimeoutSeconds: () => 1,
        streamingList: method === 'stream',
      });
      const names = new Set<string>();
      const drain = () => {
        for (const item of buffer.takeNow(1000)) if (item.type === 'event') names.add(item.name);
      };
      await whileWatching(watcher, async () => {
        await msUntil('first list', () => lists.length === 1, 20_000);
        // Two restarts: the server ended two watches on its own.
        await msUntil('two watches closed by the server and reopened', () => restarts.length >= 2, 20_000);
        expect(new Set(restarts)).toEqual(new Set(['closed']));
        await createConfigMap(admin, NS, `after-restart-${method}`);
        await msUntil(
          'the event made after the restarts',
          () => {
            drain();
            return names.has(`after-restart-${method}`);
          },
          20_000,
        );
      });
      expect(lists).toEqual(['start']);
      expect(methods).toEqual([method]);
      expect(new Set(restarts)).toEqual(new Set(['closed']));
      // The API server answered the list (a streaming list is the first watch) and a watch per restart.
      expect(answered.filter((verb) => verb === 'list')).toHaveLength(listRequests);
      expect(answered.filter((verb) => verb === 'watch').length).toBeGreaterThanOrEqual(restarts.length + 1);
    },
  );
});
