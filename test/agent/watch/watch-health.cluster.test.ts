// Issue 19: what the agent shows of its watches matches what happened. `/watches` follows every
// event (count, resourceVersion, time), the watch-health metrics move when their event happens
// (first list, 410 relist, a relist after a refused watch, watch restart, resume, uplink batches and
// acknowledgements), and the log
// says it in lines an operator can read: lists and resumes at INFO with reason and object count, an
// outage of the API server or the control plane as one WARN line with its cause, no stack traces.
// A private cluster without the watch cache, so a compaction is felt at once (as in
// relist-after-410.cluster.test.ts), and so its API server may be restarted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';
import { TaskBudget, WatchRegistry, type WatchStatus } from '../../../src/agent/watch/index.ts';
import { ScopeWatcher } from '../../../src/agent/watch/scope-watcher.ts';
import { KubeHttp } from '../../../src/kube/index.ts';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type Cluster, startCluster } from '../../cluster/index.ts';
import type { LogEntry } from '../in-process-agent.ts';
import {
  CONFIG_MAPS,
  clusterNames,
  counterSum,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  msUntilReady,
  must,
  ROOT_CA,
  type RunningAgent,
  recordingObserver,
  resourceVersionOf,
  startAgent,
  storedNames,
  tokenKubeConfig,
  whileWatching,
} from './watch-fixture.ts';

const NS = 'health';
const ACCOUNT = 'health';
let cluster: Cluster;
let cp: TestControlPlane;
let agent: RunningAgent | undefined;
let cpClosed = false;

const settings = () => ({
  orchestrator: {
    accounts: [
      {
        name: ACCOUNT,
        orchConfigFile: cluster.kubeconfigPath,
        namespaces: [NS],
        kinds: ['configMap'],
        maxResumableResourceAgeMs: 60_000,
      },
    ],
  },
});

async function metricsOf(running: RunningAgent): Promise<string> {
  return (await fetch(`http://127.0.0.1:${running.metricsPort}/metrics`)).text();
}

/** The value of a sample without labels, e.g. a gauge or a histogram's `_count`. */
function plain(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no ${name} sample in the agent metrics`);
  return Number(line.slice(name.length + 1));
}

async function watchesOf(running: RunningAgent): Promise<WatchStatus[]> {
  const body: unknown = await (await fetch(`http://127.0.0.1:${running.healthPort}/watches`)).json();
  if (typeof body !== 'object' || body === null || !('items' in body) || !Array.isArray(body.items))
    throw new Error(`/watches answered ${JSON.stringify(body)}`);
  return body.items;
}

const configMapWatch = async (running: RunningAgent) => {
  const found = (await watchesOf(running)).find((w) => w.kind === 'ConfigMap' && w.namespace === NS);
  if (found === undefined) throw new Error('no ConfigMap watch in /watches');
  return found;
};

const linesWith = (logs: LogEntry[], msg: string) => logs.filter((l) => l.msg === msg);

/** pino's numeric levels. */
const WARN = 40;
const INFO = 30;

/** No line at WARN or above carries a stack, an error object or a line break: one line each. */
function expectOneLineFaults(logs: LogEntry[]) {
  const faults = logs.filter((l) => Number(l.level) >= WARN);
  for (const line of faults) {
    expect(line, JSON.stringify(line)).not.toHaveProperty('err');
    expect(line, JSON.stringify(line)).not.toHaveProperty('stack');
    expect(JSON.stringify(line)).not.toContain('\\n    at ');
  }
}

beforeAll(async () => {
  [cluster, cp] = await Promise.all([startCluster({ watchCache: false, nodes: 0 }), startTestControlPlane()]);
  await createNamespace(cluster.client, NS, ['one', 'two']);
  // The controller manager adds its CA ConfigMap soon after: wait, so the first list holds it too.
  await msUntil('root CA ConfigMap', async () =>
    (await clusterNames(cluster.client, `/api/v1/namespaces/${NS}/configmaps`)).includes(`${NS}/${ROOT_CA}`),
  );
});

afterAll(async () => {
  await agent?.stop();
  if (!cpClosed) await cp?.close();
  await cluster?.stop();
});

describe('watch health', () => {
  it('the first list is counted and logged with its reason and object count; /watches and the metrics follow creates, updates and deletes', async () => {
    agent = await startAgent(cp, settings(), 'debug');
    const running = agent;
    await msUntilReady(running);
    const inCluster = await clusterNames(cluster.client, `/api/v1/namespaces/${NS}/configmaps`);
    expect(inCluster).toHaveLength(3);

    const first = await metricsOf(running);
    expect(counterSum(first, 'orch_agent_watch_lists_total', { account: ACCOUNT, reason: 'start' })).toBe(1);
    expect(counterSum(first, 'orch_agent_watch_resumes_total', { account: ACCOUNT })).toBe(0);
    const listed = linesWith(running.logs, 'watch listed');
    expect(listed).toEqual([
      expect.objectContaining({
        level: INFO,
        component: 'watch',
        account: ACCOUNT,
        kind: 'ConfigMap',
        namespace: NS,
        reason: 'start',
        method: 'stream',
        objects: 3,
      }),
    ]);
    await msUntil('the first snapshot acknowledged', async () =>
      (await storedNames(cp, ACCOUNT, 'ConfigMap', true)).includes(`${NS}/${ROOT_CA}`),
    );
    const acksBefore = plain(await metricsOf(running), 'orch_agent_uplink_ack_duration_seconds_count');
    expect(acksBefore).toBeGreaterThanOrEqual(1);
    const before = await configMapWatch(running);
    expect(before.events).toBe(0);

    const changesFrom = Date.now();
    await createConfigMap(cluster.client, NS, 'three');
    await createConfigMap(cluster.client, NS, 'four');
    must(
      await cluster.client.request('PUT', `/api/v1/namespaces/${NS}/configmaps/one`, {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'one', namespace: NS },
          data: { n: '1' },
        },
      }),
    );
    await deleteObject(cluster.client, `/api/v1/namespaces/${NS}/configmaps/two`);
    const last = must(
      await cluster.client.request('PUT', `/api/v1/namespaces/${NS}/configmaps/three`, {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'three', namespace: NS },
          data: { n: '3' },
        },
      }),
    );
    const lastVersion = resourceVersionOf(last.json);

    await msUntil(
      '/watches counts the five events',
      async () => (await configMapWatch(running)).events === 5,
    );
    const after = await configMapWatch(running);
    expect(after).toMatchObject({ state: 'watching', events: 5, resourceVersion: lastVersion });
    expect(BigInt(after.resourceVersion)).toBeGreaterThan(BigInt(before.resourceVersion));
    expect(Date.parse(after.lastEventAt ?? '')).toBeGreaterThanOrEqual(changesFrom - 1000);

    await msUntil('the changes acknowledged', async () =>
      (await storedNames(cp, ACCOUNT, 'ConfigMap')).includes(`${NS}/four`),
    );
    const text = await metricsOf(running);
    const lastEvent = counterSum(text, 'orch_agent_watch_last_event_timestamp_seconds', {
      account: ACCOUNT,
      kind: 'ConfigMap',
      namespace: NS,
    });
    expect(lastEvent * 1000).toBe(Date.parse(after.lastEventAt ?? ''));
    expect(plain(text, 'orch_agent_uplink_ack_duration_seconds_count')).toBeGreaterThan(acksBefore);
    expect(plain(text, 'orch_agent_uplink_batches_in_flight')).toBe(0);
  });

  it('an API server restart after a compaction: one WARN line with the cause, a restart and a 410 relist counted and logged with its object count', async () => {
    const running = agent ?? (await startAgent(cp, settings(), 'debug'));
    agent = running;
    await msUntilReady(running);
    const linesBefore = running.logs.length;
    const textBefore = await metricsOf(running);
    const restartsBefore = counterSum(textBefore, 'orch_agent_watch_restarts_total', { account: ACCOUNT });
    expect(counterSum(textBefore, 'orch_agent_watch_lists_total', { reason: '410' })).toBe(0);
    // Writes of a kind the agent does not watch move etcd past the agent's version; compacted, the
    // version is gone, and the watch opened after the restart gets 410.
    for (let i = 0; i < 3; i++) {
      must(
        await cluster.client.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
          body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}`, namespace: NS } },
        }),
      );
    }
    await cluster.compactEtcd();
    // Killed, not stopped: a graceful stop ends the watch, and whether its reopening meets the
    // server's 'shutting down' answer or a refused connection is a race (both are the outage's first
    // failure, and the WARN line's cause). A kill cuts the stream itself: one cause, every run.
    await cluster.restartApiServer({ signal: 'SIGKILL' });
    await msUntil(
      'relisted after 410',
      async () =>
        counterSum(await metricsOf(running), 'orch_agent_watch_lists_total', {
          account: ACCOUNT,
          reason: '410',
        }) === 1,
      20_000,
    );
    const text = await metricsOf(running);
    expect(counterSum(text, 'orch_agent_watch_restarts_total', { account: ACCOUNT })).toBeGreaterThan(
      restartsBefore,
    );
    expect(counterSum(text, 'orch_agent_watch_restarts_total', { account: ACCOUNT, reason: '410' })).toBe(1);
    const logs = running.logs.slice(linesBefore);
    const inCluster = await clusterNames(cluster.client, `/api/v1/namespaces/${NS}/configmaps`);
    expect(linesWith(logs, 'watch relisted')).toEqual([
      expect.objectContaining({ level: INFO, reason: '410', objects: inCluster.length, namespace: NS }),
    ]);
    // While the API server was away the watch failed, once at WARN with the cause, which names the
    // server; retries that failed the same way (refused connections) are at DEBUG.
    const warned = linesWith(logs, 'watch failed; retrying after a backoff');
    expect(warned).toEqual([
      expect.objectContaining({
        level: WARN,
        kind: 'ConfigMap',
        cause: expect.stringContaining(`the watch stream from ${cluster.server} was cut`),
      }),
    ]);
    expectOneLineFaults(logs);
  });

  it('a restarted agent resumes without a list, counted and logged', async () => {
    await agent?.stop();
    agent = undefined;
    agent = await startAgent(cp, settings(), 'debug');
    const running = agent;
    await msUntilReady(running);
    const text = await metricsOf(running);
    expect(counterSum(text, 'orch_agent_watch_resumes_total', { account: ACCOUNT })).toBe(1);
    expect(counterSum(text, 'orch_agent_watch_lists_total', { account: ACCOUNT })).toBe(0);
    expect(linesWith(running.logs, 'watch resumed without a list')).toEqual([
      expect.objectContaining({ level: INFO, kind: 'ConfigMap', namespace: NS, reason: 'start' }),
    ]);
    expect(linesWith(running.logs, 'watch listed')).toEqual([]);
  });

  it('with the control plane gone, the watches stop with one INFO line, and reconnecting logs one WARN line, not one per retry', async () => {
    const running = agent ?? (await startAgent(cp, settings(), 'debug'));
    agent = running;
    await msUntilReady(running);
    const linesBefore = running.logs.length;
    cpClosed = true;
    await cp.close();
    await createConfigMap(cluster.client, NS, 'while-away');
    // Tasks run until the connection to the control plane is lost (spec): nothing is watched, and
    // nothing is owed to the control plane but what it had not acknowledged when the session ended.
    const stoppedLine = 'control plane connection lost: watches stopped until it is back';
    await msUntil(
      'watches stopped',
      async () =>
        plain(await metricsOf(running), 'orch_agent_active_watches') === 0 &&
        linesWith(running.logs.slice(linesBefore), stoppedLine).length > 0,
    );
    const stopped = linesWith(running.logs.slice(linesBefore), stoppedLine);
    expect(stopped).toEqual([expect.objectContaining({ level: INFO })]);
    // The connection's attempts to open a new session: the first failure at WARN, the same again at DEBUG.
    const opening = 'cannot open a session with the control plane';
    await msUntil(
      'two failed attempts to reconnect',
      () => linesWith(running.logs.slice(linesBefore), opening).length >= 2,
    );
    const attempts = linesWith(running.logs.slice(linesBefore), opening);
    expect(attempts.filter((l) => l.level === WARN)).toEqual([
      expect.objectContaining({ reason: expect.any(String), detail: expect.any(String) }),
    ]);
    // A batch that was in flight when the session ended is retried: one WARN line, whatever the retries.
    const sends = linesWith(
      running.logs.slice(linesBefore),
      'cannot send cache events to the control plane; retrying',
    );
    expect(sends.filter((l) => l.level === WARN).length).toBeLessThanOrEqual(1);
    expectOneLineFaults(running.logs.slice(linesBefore));
  });

  it('a watch refused after its list (RBAC revoked) lists again with reason error once it may', async () => {
    const ns = 'refused';
    const post = async (path: string, body: Record<string, unknown>) =>
      must(await cluster.client.request('POST', path, { body }));
    await createNamespace(cluster.client, ns, ['x']);
    await post(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'reader' },
    });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    });
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
    };
    const bindings = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
    await post(bindings, binding);
    const token = await cluster.createServiceAccountToken(ns, 'reader');
    const kc = tokenKubeConfig(cluster.server, cluster.caFile, token);
    const { observer, lists, restarts } = recordingObserver();
    const watcher = new ScopeWatcher({
      http: new KubeHttp(kc, cluster.server),
      resource: CONFIG_MAPS,
      scope: { account: 'refused', group: '', kind: 'ConfigMap', namespace: ns },
      buffer: new CoalescingBuffer(1000),
      budget: new TaskBudget({ totalBudget: 0, budgetPerAccount: 0, queueCheckFrequencyMs: 100 }),
      budgetEveryList: false,
      registry: new WatchRegistry(() => new Date()),
      observer,
      forbiddenRecheckMs: 200,
      backoff: { initialDelayMs: 100, multiplier: 1.5, jitter: 0, maxDelayMs: 500 },
    });
    await whileWatching(watcher, async () => {
      await msUntil('first list', () => lists.length === 1);
      must(await cluster.client.request('DELETE', `${bindings}/reader`));
      // Ends the open watch; the next one is refused.
      await cluster.restartApiServer();
      await msUntil('the watch refused and retried', () => restarts.includes('error'), 20_000);
      expect(lists).toEqual(['start']);
      await post(bindings, binding);
      await msUntil('listed again', () => lists.length === 2, 20_000);
      expect(lists).toEqual(['start', 'error']);
    });
  });
});
