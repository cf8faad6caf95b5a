// Orca's recovery of a deploy whose agent died (issue 38): `cloudctl serve` and `orch-agent run` as
// real processes, the shared cluster. The agent is SIGKILLed while a many-ConfigMap deployManifest is
// being applied (the test fails unless some objects, and not all, were written), and stays away past
// the operation's deadline, so the task fails with its outcome unknown: a retryable failure. Once the
// agent is back, Orca's MonitorDeployManifestTask calls follow one another as it makes them (owner,
// PATCH retry, restart with its operation list), and the same task completes on this cloudctl: the
// deploy sent again once under its stored id (one operation, not a second conversion), every object
// once as -v000, and those written before the kill the same objects with the same content.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../cloudctl/http-client.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { TestSystem } from '../support/processes.ts';

const NS = 'crash-task-restart';
const TOKENS = { agent: 'agent-token-restart-9d4e', ops: 'ops-token-restart-1f6a' };
/** Enough objects, each large enough, that the agent is killed with the deploy under way. */
const OBJECTS = 80;
const FILLER = 'x'.repeat(8_000);
/**
 * The operation wait: short, so the task fails soon after the kill (its deadline, then the agent's
 * result retry window, 3 × 3 s by default), and long enough for the deploy sent again to apply every
 * object before its new deadline on a loaded machine.
 */
const WAIT_TIMEOUT_MS = 20_000;
const FAILS_WITHIN_MS = 60_000;
const COMPLETES_WITHIN_MS = 30_000;

let dir = '';
let system: TestSystem | undefined;
let cluster: ClusterClient | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${NS}-`));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: NS, token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: NS,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['configMap'],
      read: ['ops'],
      write: ['ops'],
    },
    config: `operations:\n  waitTimeoutMs: ${WAIT_TIMEOUT_MS}`,
    // A machine running several suites at once takes a start past the usual 30 s.
    readyTimeoutMs: 90_000,
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the system is not started');
  return value;
}

function deployOperation() {
  const manifests = Array.from({ length: OBJECTS }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `restarted-${String(i).padStart(3, '0')}`,
      namespace: NS,
      labels: { deploy: 'restarted' },
    },
    data: { index: String(i), filler: FILLER },
  }));
  return [{ deployManifest: { account: NS, moniker: { app: 'crashrestart' }, manifests } }];
}

const LABELLED = `/api/v1/namespaces/${NS}/configmaps?labelSelector=deploy%3Drestarted`;

interface ConfigMap {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

interface ConfigMapList {
  metadata: { resourceVersion: string };
  items: ConfigMap[];
}

/**
 * What a ConfigMap is, apart from the bookkeeping of its writes (resourceVersion, managedFields, and
 * the last-applied annotation, whose keys a second apply may write in another order): its uid and a
 * digest of its labels, other annotations and data.
 */
function identity(item: ConfigMap): string {
  const { uid, labels, annotations = {} } = item.metadata;
  const { 'kubectl.kubernetes.io/last-applied-configuration': _lastApplied, ...kept } = annotations;
  const content = JSON.stringify({ labels, annotations: kept, data: item.data });
  return `${uid} ${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
}

/** The deploy's ConfigMaps by name (uid and content), and the list's resourceVersion. */
async function configMaps(): Promise<{ objects: Map<string, string>; version: string }> {
  const listed = await started(cluster).request('GET', LABELLED);
  expect(listed.status, listed.text).toBe(200);
  const list = listed.json as ConfigMapList;
  return {
    objects: new Map(list.items.map((item) => [item.metadata.name, identity(item)])),
    version: list.metadata.resourceVersion,
  };
}

/** SIGKILLs the agent when the API server reports the first ConfigMap created (watched from `version`). */
async function killAtFirstCreated(version: string): Promise<void> {
  const watch = `${LABELLED}&watch=1&resourceVersion=${version}`;
  for await (const event of started(cluster).watch(watch, AbortSignal.timeout(30_000))) {
    if (event.type === 'ADDED') {
      await started(system).killAgent();
      return;
    }
  }
  throw new Error('no ConfigMap was created within 30 s');
}

// biome-ignore lint/suspicious/noExplicitAny: a task as GET /task/{id} answers it, read field by field.
async function taskWhen(api: ApiClient, id: string, done: (task: any) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.get(`/task/${id}`);
    expect(answer.status).toBe(200);
    if (done(answer.body)) return answer.body;
    if (Date.now() > deadline)
      throw new Error(`task ${id} not there in ${timeoutMs} ms: ${JSON.stringify(answer.body)}`);
    await sleep(200);
  }
}

/** cloudctl's log lines (JSON) with message `msg` about account NS. */
function logged(msg: string): Array<{ operationId?: string; type?: string }> {
  return started(system)
    .cloudctl.output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) => JSON.parse(line) as { msg?: string; account?: string; operationId?: string; type?: string },
    )
    .filter((entry) => entry.msg === msg && entry.account === NS);
}

describe('a deploy whose agent was SIGKILLed and stayed away past the deadline', () => {
  it("is finished by Orca's restart once the agent is back: every object once, the same task", async () => {
    const api = apiClient(started(system).url, TOKENS.ops);
    const before = await configMaps();
    expect(before.objects.size).toBe(0);
    const submitted = await api.post(
      '/orchestrator/ops?clientRequestId=restart-after-kill-1',
      deployOperation(),
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const id: string = submitted.body.id;

    await killAtFirstCreated(before.version);
    const atKill = (await configMaps()).objects;
    expect(atKill.size, 'ConfigMaps written before the kill').toBeGreaterThan(0);
    expect(atKill.size, 'ConfigMaps written before the kill: the deploy was not cut midway').toBeLessThan(
      OBJECTS,
    );

    // No agent past the deadline: the outcome is unknown, and the failure says a restart may mend it.
    const failed = await taskWhen(api, id, (t) => t.status.completed, FAILS_WITHIN_MS);
    expect(failed.status, JSON.stringify(failed.history)).toMatchObject({ failed: true, retryable: true });
    expect(failed.status.status).toContain('did not come back before the deadline');
    const writtenBeforeRestart = (await configMaps()).objects;

    await started(system).startAgent();
    // The agent being back sends nothing by itself: nobody waits for the operation any more.
    await sleep(1_000);
    expect((await api.get(`/task/${id}`)).body.status.failed).toBe(true);

    // Orca: whose task is it, fail it for a retry, restart it with the stage's operation.
    const owner = await api.get(`/orchestrator/task/${id}/owner`);
    expect(owner.status).toBe(200);
    expect(owner.body).toEqual({ name: 'cloudctl' });
    const patched = await api.patch(`/orchestrator/task/${id}`, { retry: true });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const restartedAt = Date.now();
    const restarted = await api.post(`/orchestrator/task/${id}/restart`, deployOperation());
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200);
    expect(restarted.body).toEqual({ id, resourceUri: `/task/${id}` });

    const done = await taskWhen(api, id, (t) => t.status.completed && !t.status.failed, COMPLETES_WITHIN_MS);
    expect(done.status.retryable).toBe(false);
    expect(done.history.map((h: { status: string }) => h.status)).toContain(
      'Re-initializing Orchestration Task (failure is retryable)',
    );
    // The deploy went again once, under the id the first run stored: one operation, not two.
    const firstId = /operation ([0-9a-f-]{36})/.exec(failed.status.status)?.[1];
    expect(firstId).toBeDefined();
    const sentAgain = logged('operation sent again: its task was restarted');
    expect(sentAgain).toEqual([expect.objectContaining({ type: 'deploy', operationId: firstId })]);

    const after = (await configMaps()).objects;
    // Each ConfigMap once, as its first version (a second conversion would have made -v001s).
    expect([...after.keys()].sort()).toEqual(
      deployOperation()[0]?.deployManifest.manifests.map((m) => `${m.metadata.name}-v000`),
    );
    // Those the first run wrote are the same objects as they were: not deleted and made again, nothing
    // changed in them. (The agent process that took the operation again had lost the first run, so it
    // applied them once more: their resourceVersion moves, the objects do not.)
    for (const [name, before] of writtenBeforeRestart) expect(after.get(name), name).toBe(before);
    console.info(
      `agent SIGKILLed with ${atKill.size}/${OBJECTS} ConfigMaps applied (${writtenBeforeRestart.size} by the deadline): ` +
        `the restarted task completed ${Date.now() - restartedAt} ms after Orca's restart`,
    );
  }, 300_000);
});
