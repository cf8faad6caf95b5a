// A deploy survives its agent (issue 29): `cloudctl serve` and `orch-agent run` as real processes, the
// shared cluster. The agent is SIGKILLed while a many-ConfigMap deployManifest is being applied, at
// the first object the API server reports (the test fails unless some objects, and not all, were
// written when it died), and started again, as a pod is after a node drain. cloudctl sends the
// operation again to the new session with the same id, so the same task completes with every object
// once, and no second user action. A Job (not safe to run twice) is not started again: the task
// fails at once, saying why, instead of at the operation's deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../cloudctl/http-client.ts';
import { useCrashSystem } from './crash-system.ts';

const NS = 'crash-deploy';
const TOKENS = { agent: 'agent-token-deploy-5c2e', ops: 'ops-token-deploy-a71b' };
/**
 * Enough objects, each large enough, that the deploy takes a while to apply: the agent writes eight
 * at a time, so ten rounds of writes, and it is killed at the first object the API server reports.
 */
const OBJECTS = 80;
const FILLER = 'x'.repeat(8_000);
/** cloudctl's default operation deadline is a minute: a resent deploy completes far sooner. */
const COMPLETES_WITHIN_MS = 30_000;

const crash = useCrashSystem(NS, TOKENS);

function configMaps(label: string) {
  return Array.from({ length: OBJECTS }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${label}-${String(i).padStart(3, '0')}`, namespace: NS, labels: { deploy: label } },
    data: { index: String(i), filler: FILLER },
  }));
}

const labelled = (label: string) => `/api/v1/namespaces/${NS}/configmaps?labelSelector=deploy%3D${label}`;

interface ConfigMapList {
  metadata: { resourceVersion: string };
  items: Array<{ metadata: { name: string; uid: string } }>;
}

/** The ConfigMaps of the deploy `label`, by name with their uid, and the list's resourceVersion. */
async function configMapsLabelled(label: string): Promise<{ uids: Map<string, string>; version: string }> {
  const listed = await crash.cluster.request('GET', labelled(label));
  expect(listed.status, listed.text).toBe(200);
  const list = listed.json as ConfigMapList;
  return {
    uids: new Map(list.items.map((item) => [item.metadata.name, item.metadata.uid])),
    version: list.metadata.resourceVersion,
  };
}

/**
 * SIGKILLs the agent the moment the API server reports the first ConfigMap of `label` created, as
 * seen by a watch from `version` (a list's, taken before the deploy started, so no event is missed).
 */
async function killAtFirstCreated(label: string, version: string): Promise<void> {
  const watch = `${labelled(label)}&watch=1&resourceVersion=${version}`;
  for await (const event of crash.cluster.watch(watch, AbortSignal.timeout(30_000))) {
    if (event.type === 'ADDED') {
      await crash.system.killAgent();
      return;
    }
  }
  throw new Error(`no ConfigMap of ${label} was created within 30 s`);
}

/** Lines of cloudctl's log (JSON) saying it sent an operation of `type` again. */
function resends(type: string): number {
  return crash.system.cloudctl
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; type?: string; account?: string })
    .filter(
      (entry) =>
        entry.msg === 'operation sent again: the session that took it ended before its result' &&
        entry.type === type &&
        entry.account === NS,
    ).length;
}

/** The agent's in-flight operations of a type (its health server's `/operations`). */
async function inFlight(type: string): Promise<number> {
  const response = await fetch(`${crash.system.agentUrl}/operations`).catch(() => undefined);
  if (response === undefined) return 0;
  const body = (await response.json()) as { inFlight: Array<{ type: string }> };
  return body.inFlight.filter((operation) => operation.type === type).length;
}

async function taskDone(api: ApiClient, id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.get(`/task/${id}`);
    expect(answer.status).toBe(200);
    if (answer.body.status.completed || answer.body.status.failed) return answer.body;
    if (Date.now() > deadline)
      throw new Error(`task ${id} not done in ${timeoutMs} ms: ${JSON.stringify(answer.body)}`);
    await sleep(100);
  }
}

/** SIGKILLs the agent once it runs an operation of `type` and `started()` holds. */
async function killWhileRunning(type: string, started: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await inFlight(type)) > 0 && (await started())) {
      await crash.system.killAgent();
      return;
    }
    if (Date.now() > deadline) throw new Error(`the agent never ran a ${type} operation`);
    await sleep(5);
  }
}

describe('an operation whose agent is SIGKILLed and restarted', () => {
  it('a deploy is sent again to the restarted agent and completes: every object once, the same task', async () => {
    const api = apiClient(crash.system.url, TOKENS.ops);
    const before = await configMapsLabelled('killed');
    expect(before.uids.size).toBe(0);
    const started = await api.post('/ops?clientRequestId=deploy-killed-1', [
      { deployManifest: { account: NS, moniker: { app: 'crashdeploy' }, manifests: configMaps('killed') } },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);

    await killAtFirstCreated('killed', before.version);
    // The premise, counted once the agent is dead: it died with the deploy begun and not finished,
    // and cloudctl has no result for it.
    const atKill = (await configMapsLabelled('killed')).uids;
    expect(atKill.size, 'ConfigMaps written before the kill').toBeGreaterThan(0);
    expect(atKill.size, 'ConfigMaps written before the kill: the deploy was not cut midway').toBeLessThan(
      OBJECTS,
    );
    expect((await api.get(`/task/${started.body.id}`)).body.status.completed).toBe(false);
    expect(resends('deploy')).toBe(0);

    const restartedAt = Date.now();
    await crash.system.startAgent();
    const done = await taskDone(api, started.body.id, COMPLETES_WITHIN_MS);
    expect(done.status, JSON.stringify(done.history)).toMatchObject({ completed: true, failed: false });
    // cloudctl sent the deploy again, once: to the restarted agent's session.
    expect(resends('deploy')).toBe(1);
    const after = (await configMapsLabelled('killed')).uids;
    // Each ConfigMap once, as its first version (ConfigMaps are versioned, as Spinnaker deploys them).
    expect([...after.keys()].sort()).toEqual(configMaps('killed').map((m) => `${m.metadata.name}-v000`));
    // Those written before the kill are the same objects, written over, not deleted and made again.
    for (const [name, uid] of atKill) expect(after.get(name), name).toBe(uid);
    console.info(
      `agent SIGKILLed with ${atKill.size}/${OBJECTS} ConfigMaps applied: the task completed ${Date.now() - restartedAt} ms after the restart began`,
    );
    // The retry a user would make returns the same, completed task: nothing more to do.
    const again = await api.post('/ops?clientRequestId=deploy-killed-1', [
      { deployManifest: { account: NS, moniker: { app: 'crashdeploy' }, manifests: configMaps('killed') } },
    ]);
    expect(again.body.id).toBe(started.body.id);
  }, 120_000);

  it('a Job is not run twice: the task fails at once with the reason, not at the deadline', async () => {
    const api = apiClient(crash.system.url, TOKENS.ops);
    // No node carries the selector: the Job's pod waits, so the operation runs until the kill.
    const started = await api.post('/ops/runJob', {
      account: NS,
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { generateName: 'killed-job-', namespace: NS },
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              nodeSelector: { 'orch-agent-test/nowhere': 'true' },
              containers: [{ name: 'work', image: 'registry.example/work:1' }],
            },
          },
        },
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobs = async () => {
      const listed = await crash.cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
      return (listed.json as { items: unknown[] }).items.length;
    };
    await killWhileRunning('runJob', async () => (await jobs()) > 0);
    await crash.system.startAgent();
    const restartedAt = Date.now();

    const done = await taskDone(api, started.body.id, COMPLETES_WITHIN_MS);
    expect(done.status.failed).toBe(true);
    const failure = done.history.at(-1)?.status ?? '';
    expect(failure).toContain('NOT_STARTED');
    expect(failure).toContain('not safe to run twice');
    // Well before the operation's one-minute deadline.
    expect(Date.now() - restartedAt).toBeLessThan(COMPLETES_WITHIN_MS);
    expect(await jobs()).toBe(1);
  }, 120_000);
});
