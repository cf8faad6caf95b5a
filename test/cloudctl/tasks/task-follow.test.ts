// Following a task and starting one without needless waits: GET /task/{id}?waitMs= answers when the
// running task next changes (not a polling interval later, nor when its wait runs out), and a
// deploy's POST takes the account's description the agent gave before, asking again on a new session.
// A test agent on real gRPC receives the operations and reports results; requests go over real HTTP.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ControlMessage__Output } from '../../../src/proto/index.ts';
import {
  startTestControlPlane,
  type TestAgent,
  TestAgents,
  type TestControlPlane,
  USERS,
} from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

let cp: TestControlPlane;
let ops: ApiClient;
const testAgents = new TestAgents();

beforeAll(async () => {
  cp = await startTestControlPlane();
  ops = apiClient(cp.url, USERS.ops.token);
});

afterEach(() => {
  testAgents.closeAll();
});

afterAll(async () => {
  await cp?.close();
});

const operations = (agent: TestAgent) =>
  agent.received.flatMap((m) => (m.message === 'operation' && m.operation ? [m.operation] : []));

/** The agent's `index`th operation (0: the first), once it has arrived. */
async function operationAt(agent: TestAgent, index: number) {
  await agent.next(() => operations(agent).length > index);
  return operations(agent)[index] as NonNullable<ControlMessage__Output['operation']>;
}

async function succeed(agent: TestAgent, index: number, result: unknown) {
  const op = await operationAt(agent, index);
  await agent.report({
    operationId: op.id,
    account: op.account,
    outcome: 'SUCCEEDED',
    result: Buffer.from(JSON.stringify(result)),
  });
  return op;
}

const scale = (account: string) =>
  ops.post('/ops/scaleManifest', { account, manifestName: 'deployment a', location: 'default', replicas: 2 });

describe('GET /task/{id}?waitMs=', () => {
  it('answers a waiting client as the running task completes, not when its wait runs out', async () => {
    const agent = await testAgents.connect(cp.address, ['follow-wait']);
    const started = await scale('follow-wait');
    expect(started.status).toBe(200);
    await operationAt(agent, 0);
    // The step's progress is saved while the agent works: once it is in, the next change is the end.
    await expect
      .poll(async () => (await ops.get(`/task/${started.body.id}`)).body.history.length)
      .toBeGreaterThan(1);
    const waiting = ops.get(`/task/${started.body.id}?waitMs=10000`);
    // The GET is in before the result: without the wait it would answer the task as running.
    await sleep(300);
    const reportedAt = performance.now();
    await succeed(agent, 0, { replicas: 2 });
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toMatchObject({ completed: true, failed: false });
    expect(performance.now() - reportedAt).toBeLessThan(2_000);
    // The waiting GET is answered with the task as its completion wrote it, not read back: it is the
    // task a fresh read finds, history and results included.
    expect(answer.body).toEqual((await ops.get(`/task/${started.body.id}`)).body);
  });

  it('answers at once for a task that no longer runs', async () => {
    const agent = await testAgents.connect(cp.address, ['follow-done']);
    const started = await scale('follow-done');
    await succeed(agent, 0, { replicas: 2 });
    await expect
      .poll(async () => (await ops.get(`/task/${started.body.id}`)).body.status.completed)
      .toBe(true);
    const asked = performance.now();
    const answer = await ops.get(`/task/${started.body.id}?waitMs=10000`);
    expect(answer.body.status.completed).toBe(true);
    expect(performance.now() - asked).toBeLessThan(2_000);
  });

  it('answers 404 at once to a user who may not read the running task: a wait tells nothing', async () => {
    await testAgents.connect(cp.address, ['follow-hidden']);
    const started = await scale('follow-hidden');
    const asked = performance.now();
    const answer = await apiClient(cp.url, USERS.nobody.token).get(`/task/${started.body.id}?waitMs=10000`);
    expect(answer.status).toBe(404);
    expect(performance.now() - asked).toBeLessThan(2_000);
  });

  it('answers 400 naming waitMs for a wait over 10 s', async () => {
    const answer = await ops.get('/task/any?waitMs=10001');
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('waitMs');
  });
});

describe("a deploy's POST and the account's description", () => {
  const deploy = (account: string, name: string) =>
    ops.post('/orchestrator/ops', [
      {
        deployManifest: {
          account,
          cloudProvider: 'orchestrator',
          source: 'text',
          moniker: { app: 'web' },
          // A Deployment: not a versioned kind, so the plan lists nothing.
          manifests: [
            { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' } },
          ],
        },
      },
    ]);
  const description = { defaultNamespace: 'default', namespaces: [], omitNamespaces: [] };

  it('asks the agent once for the deploys of one session, and again on a new session', async () => {
    const first = await testAgents.connect(cp.address, ['follow-described']);
    const posted = deploy('follow-described', 'one');
    expect((await succeed(first, 0, description)).type).toBe('describeAccount');
    expect((await posted).status).toBe(200);
    expect((await succeed(first, 1, { applied: [] })).type).toBe('deploy');
    // The second deploy's POST is answered without asking the agent again.
    expect((await deploy('follow-described', 'two')).status).toBe(200);
    expect((await succeed(first, 2, { applied: [] })).type).toBe('deploy');

    testAgents.closeAll();
    const second = await testAgents.connect(cp.address, ['follow-described']);
    const again = deploy('follow-described', 'three');
    expect((await succeed(second, 0, description)).type).toBe('describeAccount');
    expect((await again).status).toBe(200);
  });
});
