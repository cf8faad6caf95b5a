// A deploy survives its agent (issue 29): `cloudctl serve` and `orch-agent run` as real processes, the
// shared cluster. The agent is SIGKILLed while a many-ConfigMap deployManifest is half applied and
// started again, as a pod is after a node drain. cloudctl sends the operation again to the new session
// with the same id, so the same task completes with every object once, and no second user action.
// A Job (not safe to run twice) is not started again: the task fails at once, saying why, instead
// of at the operation's deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../cloudctl/http-client.ts';
import { useCrashSystem } from './crash-system.ts';

const NS = 'crash-deploy';
const TOKENS = { agent: 'agent-token-deploy-5c2e', ops: 'ops-token-deploy-a71b' };
/** Enough objects, each large enough, that the deploy takes a while to apply one by one. */
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

async function namesLabelled(label: string): Promise<string[]> {
  const listed = await crash.cluster.request(
    'GET',
    `/api/v1/namespaces/${NS}/configmaps?labelSelector=deploy%3D${label}`,
  );
  const items = (listed.json as { items: Array<{ metadata: { name: string } }> }).items;
  return items.map((item) => item.metadata.name);
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

/** SIGKILLs the agent once the operation runs and `applied()` is past zero; returns what was applied then. */
async function killWhileRunning(type: string, applied: () => Promise<number>): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await inFlight(type)) > 0) {
      const count = await applied();
      if (count > 0) {
        await crash.system.killAgent();
        return count;
      }
    }
    if (Date.now() > deadline) throw new Error(`the agent never ran a ${type} operation`);
    await sleep(5);
  }
}

describe('an operation whose agent is SIGKILLed and restarted', () => {
  it('a deploy is sent again to the restarted agent and completes: every object once, the same task', async () => {
    const api = apiClient(crash.system.url, TOKENS.ops);
    const started = await api.post('/ops?clientRequestId=deploy-killed-1', [
      { deployManifest: { account: NS, moniker: { app: 'crashdeploy' }, manifests: configMaps('killed') } },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);

    const atKill = await killWhileRunning('deploy', async () => (await namesLabelled('killed')).length);
    // The premise: the agent died with the deploy half done.
    expect(atKill).toBeLessThan(OBJECTS);
    const restartedAt = Date.now();
    await crash.system.startAgent();

    const done = await taskDone(api, started.body.id, COMPLETES_WITHIN_MS);
    expect(done.status, JSON.stringify(done.history)).toMatchObject({ completed: true, failed: false });
    const names = await namesLabelled('killed');
    // Each ConfigMap once, as its first version (ConfigMaps are versioned, as Spinnaker deploys them).
    expect(names.sort()).toEqual(configMaps('killed').map((m) => `${m.metadata.name}-v000`));
    console.info(
      `agent SIGKILLed with ${atKill}/${OBJECTS} ConfigMaps applied: the task completed ${Date.now() - restartedAt} ms after the restart began`,
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
    await killWhileRunning('runJob', jobs);
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
