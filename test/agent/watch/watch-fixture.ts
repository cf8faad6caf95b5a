// What the watch acceptance tests share: an agent run in-process against a real control plane (as in
// test/agent/end-to-end.cluster.test.ts), readers of the control plane's store and of the API
// server's request counters, and small helpers to change objects in a cluster.
import { KubeConfig } from '@kubernetes/client-node';
import type { AgentRuntime } from '../../../src/agent/main.ts';
import { SideServerError } from '../../../src/agent/observability/index.ts';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';
import {
  type ListMethod,
  type ListReason,
  type RestartReason,
  TaskBudget,
  type WatchObserver,
  WatchRegistry,
} from '../../../src/agent/watch/index.ts';
import { ScopeWatcher } from '../../../src/agent/watch/scope-watcher.ts';
import type { CacheStore } from '../../../src/cloudctl/caching/index.ts';
import type { ApiResource, KubeHttp } from '../../../src/kube/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';
import { AGENT_TOKEN, type TestControlPlane } from '../../cloudctl/harness.ts';
import { freePort } from '../../cluster/free-port.ts';
import type { ApiClient, ApiResponse } from '../../cluster/index.ts';
import { writeConfig } from '../config/config-fixture.ts';
import {
  type InProcessAgentOptions,
  type LogEntry,
  msUntil as pollUntil,
  startInProcessAgent,
} from '../in-process-agent.ts';

export interface RunningAgent {
  runtime: AgentRuntime;
  healthPort: number;
  metricsPort: number;
  /** The agent's JSON log lines so far, at `logLevel` (default fatal: none in practice). */
  logs: LogEntry[];
  /** The SIGTERM path: resolves once runAgent has returned. */
  stop(): Promise<void>;
}

/**
 * Starts the agent with `settings` (the config file's top-level keys besides logging, server,
 * telemetry and cloudctl, e.g. `{ orchestrator: { accounts: [...] }, tasks: {...} }`).
 */
export async function startAgent(
  cp: TestControlPlane,
  settings: Record<string, unknown>,
  logLevel = 'fatal',
  options: InProcessAgentOptions = {},
): Promise<RunningAgent> {
  for (let attempt = 1; ; attempt++) {
    const healthPort = await freePort();
    const metricsPort = await freePort();
    const config = {
      logging: { format: 'json', level: logLevel },
      server: { host: '127.0.0.1', port: healthPort },
      telemetry: { enabled: true, port: metricsPort },
      cloudctl: { grpc: cp.address, insecure: true, auth: { token: AGENT_TOKEN } },
      ...settings,
    };
    try {
      const agent = await startInProcessAgent(config, options);
      return { runtime: agent.runtime, healthPort, metricsPort, logs: agent.logs, stop: () => agent.stop() };
    } catch (error) {
      // Another process of the parallel run took a port between freePort() and the bind: new ports.
      const taken = error instanceof SideServerError && error.code === 'ORCH_ERR_PORT_IN_USE';
      if (!taken || attempt >= 3) throw error;
    }
  }
}

/** Milliseconds until `probe` holds, polling every 50 ms; throws after `limitMs`. */
export function msUntil(
  what: string,
  probe: () => Promise<boolean> | boolean,
  limitMs = 10_000,
): Promise<number> {
  return pollUntil(probe, limitMs, what, 50);
}

/** Milliseconds until the agent's `/ready` answers 200 (connected, every active account synced). */
export function msUntilReady(agent: RunningAgent, limitMs = 10_000): Promise<number> {
  return msUntil(
    'agent ready',
    async () => (await fetch(`http://127.0.0.1:${agent.healthPort}/ready`)).status === 200,
    limitMs,
  );
}

/**
 * Milliseconds until the agent is ready and the control plane has stored the end of every scope's
 * first sync (a resume point per watched scope), so the store holds what the lists found.
 */
export async function msUntilSynced(
  cp: TestControlPlane,
  agent: RunningAgent,
  limitMs = 20_000,
): Promise<number> {
  const started = performance.now();
  await msUntilReady(agent, limitMs);
  await msUntil(
    'every scope synced to the store',
    async () => {
      const scopes = agent.runtime.watches.list();
      const accounts = [...new Set(scopes.map((w) => w.account))];
      const points = await cp.plane.store.cache.resumeVersions(accounts, 0, new Date());
      const stored = new Set(
        points.map((p) => `${p.scope.account}\u0000${p.scope.kind}\u0000${p.scope.namespace}`),
      );
      return scopes.every((w) => stored.has(`${w.account}\u0000${w.kind}\u0000${w.namespace}`));
    },
    limitMs,
  );
  return performance.now() - started;
}

/** Sum of the Prometheus counter samples named `name` whose labels include all of `labels`. */
export function counterSum(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const set = line.slice(name.length + 1, close);
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) {
      sum += Number(line.slice(close + 1).trim());
    }
  }
  return sum;
}

/** LIST requests for `resource` the API server has answered since it started (its own counter). */
export async function apiServerLists(admin: ApiClient, resource: string): Promise<number> {
  const metrics = must(await admin.get('/metrics'));
  return counterSum(metrics.text, 'apiserver_request_total', { verb: 'LIST', resource });
}

/** Lists the agent has completed (its `orch_agent_list_duration_seconds` histogram count). */
export async function agentLists(agent: RunningAgent): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${agent.metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('orch_agent_list_duration_seconds_count'));
  if (line === undefined) throw new Error('no orch_agent_list_duration_seconds_count in the agent metrics');
  return Number(line.split(' ').at(-1));
}

/** The ConfigMap the controller manager puts in every namespace: not one a test made. */
export const ROOT_CA = 'kube-root-ca.crt';

/**
 * `namespace/name` of every object of `kind` the control plane holds for `account`, sorted; without
 * the controller manager's ROOT_CA ConfigMaps unless `all`.
 */
export async function storedNames(
  cp: TestControlPlane,
  account: string,
  kind: string,
  all = false,
): Promise<string[]> {
  const resources = await cp.plane.store.cache.resources(account, { kind });
  return resources
    .filter((r) => all || !(r.kind === 'ConfigMap' && r.name === ROOT_CA))
    .map((r) => `${r.namespace}/${r.name}`)
    .sort();
}

/**
 * Waits until the store holds exactly `expected` (as `storedNames` gives them) and returns how long
 * that took. The agent is ready once its lists are in its buffer, a moment before they are stored.
 */
export async function msUntilStored(
  cp: TestControlPlane,
  account: string,
  kind: string,
  expected: string[],
  limitMs = 10_000,
): Promise<number> {
  let last: string[] = [];
  try {
    return await msUntil(
      `${account} ${kind}`,
      async () => {
        last = await storedNames(cp, account, kind);
        return JSON.stringify(last) === JSON.stringify([...expected].sort());
      },
      limitMs,
    );
  } catch {
    throw new Error(
      `${account} ${kind}: the store holds ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`,
    );
  }
}

/** The account as the control plane records it, once it has left its first state (ACTIVE or FAILED). */
export async function settledAccount(cp: TestControlPlane, name: string) {
  await msUntil(
    `${name} ACTIVE or FAILED`,
    async () => ['ACTIVE', 'FAILED'].includes((await cp.plane.store.agents.account(name))?.status ?? ''),
    20_000,
  );
  return cp.plane.store.agents.account(name);
}

export async function stored(
  cp: TestControlPlane,
  account: string,
  kind: string,
  namespace: string,
  name: string,
) {
  const resources = await cp.plane.store.cache.resources(account, { kind });
  return resources.find((r) => r.namespace === namespace && r.name === name);
}

/** The response, or an error naming the status and body when it is not 2xx. */
export function must(response: ApiResponse): ApiResponse {
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`API server answered ${response.status}: ${response.text.slice(0, 300)}`);
  }
  return response;
}

export const configMap = (namespace: string, name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

/** A namespace holding the given ConfigMaps (each with `{ n: name }` as data). */
export async function createNamespace(admin: ApiClient, namespace: string, configMaps: string[] = []) {
  must(
    await admin.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    }),
  );
  await Promise.all(configMaps.map((name) => createConfigMap(admin, namespace, name)));
}

export async function createConfigMap(
  admin: ApiClient,
  namespace: string,
  name: string,
  data: Record<string, string> = { n: name },
) {
  const created = must(
    await admin.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
      body: configMap(namespace, name, data),
    }),
  );
  return resourceVersionOf(created.json);
}

export async function deleteObject(admin: ApiClient, path: string) {
  must(await admin.request('DELETE', path));
}

/** `namespace/name` of every object at a list path of the cluster, sorted. */
export async function clusterNames(admin: ApiClient, path: string): Promise<string[]> {
  const list = must(await admin.get(path)).json;
  const items = isRecord(list) && Array.isArray(list.items) ? list.items : [];
  return items
    .map((item: unknown) => {
      const meta = isRecord(item) && isRecord(item.metadata) ? item.metadata : {};
      return `${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
    })
    .sort();
}

export function resourceVersionOf(object: unknown): string {
  const meta = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  if (typeof meta.resourceVersion !== 'string') throw new Error('object without a resourceVersion');
  return meta.resourceVersion;
}

/** A kubeconfig pointing at a closed port on loopback: connecting fails with ECONNREFUSED. */
export async function unreachableKubeconfig(): Promise<string> {
  const port = await freePort();
  return writeConfig(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'gone', cluster: { server: `https://127.0.0.1:${port}` } }],
      users: [{ name: 'gone', user: { token: 'unused' } }],
      contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'gone' } }],
      'current-context': 'gone',
    }),
    'kubeconfig',
  );
}

/** Makes the store wait before each commit until `open` is called. */
export function holdCommits(cache: CacheStore): { open(): void } {
  let opened: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const apply = cache.apply.bind(cache);
  cache.apply = async (changes, now) => {
    await gate;
    return apply(changes, now);
  };
  return { open: () => opened() };
}

/** ConfigMaps as discovery describes them, for ScopeWatchers driven directly. */
export const CONFIG_MAPS: ApiResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  verbs: ['list', 'watch'],
  subresources: [],
  preferred: true,
};

/** A kubeconfig for `server` (trusting `caFile`) with a bearer token. */
export function tokenKubeConfig(server: string, caFile: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, caFile }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** A WatchObserver that records lists (reason and method), restarts, and refused and failed streaming lists. */
export function recordingObserver() {
  const seen = {
    lists: [] as ListReason[],
    methods: [] as ListMethod[],
    restarts: [] as RestartReason[],
    refusals: [] as string[],
    failures: [] as unknown[],
  };
  const observer: WatchObserver = {
    listed: (_scope, reason, _objects, _seconds, method) => {
      seen.lists.push(reason);
      seen.methods.push(method);
    },
    streamingListRefused: (_scope, cause) => seen.refusals.push(cause),
    streamingListFailed: (_scope, error) => seen.failures.push(error),
    resumed: () => undefined,
    restarted: (_scope, reason) => seen.restarts.push(reason),
    failed: () => undefined,
    inFlight: () => undefined,
    acknowledged: () => undefined,
    publishFailed: () => undefined,
  };
  return { observer, ...seen };
}

/**
 * A ScopeWatcher on the ConfigMaps of `namespace`, as the watch tests drive one: its own buffer, one
 * list at a time for the account unless a shared `budget` is given, a short backoff, and everything
 * it tells its observer recorded.
 */
export function configMapScopeWatcher(
  http: KubeHttp,
  account: string,
  namespace: string,
  budget = new TaskBudget({ totalBudget: 0, budgetPerAccount: 1, queueCheckFrequencyMs: 50 }),
) {
  const buffer = new CoalescingBuffer(1000);
  const { observer, ...seen } = recordingObserver();
  const watcher = new ScopeWatcher({
    http,
    resource: CONFIG_MAPS,
    scope: { account, group: '', kind: 'ConfigMap', namespace },
    buffer,
    budget,
    budgetEveryList: true,
    registry: new WatchRegistry(() => new Date()),
    observer,
    backoff: { initialDelayMs: 100, multiplier: 1.5, jitter: 0, maxDelayMs: 500 },
  });
  return { watcher, buffer, ...seen };
}

/** Runs `watcher` for as long as `body` runs, then stops it and waits for its end. */
export async function whileWatching<T>(watcher: ScopeWatcher, body: () => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  try {
    return await body();
  } finally {
    stop.abort();
    await running;
  }
}
