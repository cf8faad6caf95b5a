// Orca's recovery of a task whose worker died, as clouddriver serves it: GET /{provider}/task/{id}/owner,
// PATCH /{provider}/task/{id} with `retry`, POST /{provider}/task/{id}/restart and POST /task/{id}:resume.
// A control plane on real sockets, test agents on real gRPC; the operation wait is one second, so a
// step whose agent went away fails (retryable) quickly.
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
const agents = new TestAgents();

beforeAll(async () => {
  cp = await startTestControlPlane({ operations: { waitTimeoutMs: 1000 } });
  ops = apiClient(cp.url, USERS.ops.token);
});

afterEach(() => agents.closeAll());

afterAll(async () => {
  await cp?.close();
});

const scale = (account: string, name: string) => ({
  scaleManifest: { account, manifestName: `deployment ${name}`, location: 'default', replicas: 2 },
});

type Operation = NonNullable<ControlMessage__Output['operation']>;

/** The operations the agent has received so far. */
function operations(agent: TestAgent): Operation[] {
  return agent.received.flatMap((m) => (m.operation ? [m.operation] : []));
}

/** The `index`th operation the agent receives (0 the first). */
async function operation(agent: TestAgent, index: number): Promise<Operation> {
  await agent.next(() => operations(agent).length > index);
  const found = operations(agent)[index];
  if (found === undefined) throw new Error(`no operation ${index}`);
  return found;
}

async function succeed(agent: TestAgent, op: Operation): Promise<void> {
  const { replicas } = JSON.parse(op.payload.toString()) as { replicas: number };
  await agent.report({
    operationId: op.id,
    account: op.account,
    outcome: 'SUCCEEDED',
    result: Buffer.from(JSON.stringify({ replicas })),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: a task as GET /task/{id} answers it, read field by field.
async function taskWhen(id: string, done: (task: any) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await ops.get(`/task/${id}`);
    expect(answer.status).toBe(200);
    if (done(answer.body)) return answer.body;
    if (Date.now() > deadline)
      throw new Error(`task ${id} did not get there: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statuses = (task: { history: Array<{ status: string }> }) => task.history.map((h) => h.status);

describe('a step whose agent went away', () => {
  it('fails the task as retryable when no agent serves the account, and :resume finishes it once one does', async () => {
    const gone = await agents.connect(cp.address, ['rec-resume']);
    gone.close();
    await new Promise((r) => setTimeout(r, 200));
    const started = await ops.post('/ops', [scale('rec-resume', 'web')]);
    const failed = await taskWhen(started.body.id, (t) => t.status.completed);
    expect(failed.status).toMatchObject({ failed: true, retryable: true });
    expect(failed.retryable).toBe(true);

    const agent = await agents.connect(cp.address, ['rec-resume']);
    const resumed = await ops.post(`/task/${started.body.id}:resume`);
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toEqual({ id: started.body.id, resourceUri: `/task/${started.body.id}` });
    await succeed(agent, await operation(agent, 0));
    const done = await taskWhen(started.body.id, (t) => t.status.completed && !t.status.failed);
    expect(done.status).toMatchObject({ completed: true, failed: false, retryable: false });
    expect(statuses(done)).toContain('Re-initializing Orchestration Task (failure is retryable)');
    expect(operations(agent)).toHaveLength(1);
  });

  it('restart runs only the remaining steps, sending the unanswered one again under its id', async () => {
    const first = await agents.connect(cp.address, ['rec-restart']);
    const started = await ops.post('/ops', [scale('rec-restart', 'one'), scale('rec-restart', 'two')]);
    await succeed(first, await operation(first, 0));
    // The second step reaches the agent, which dies before it answers: past the one-second wait
    // the task fails, its outcome unknown.
    const unanswered = await operation(first, 1);
    first.cancelSession();
    const failed = await taskWhen(started.body.id, (t) => t.status.completed);
    expect(failed.status).toMatchObject({ failed: true, retryable: true });
    expect(failed.status.status).toContain('did not come back before the deadline');

    const back = await agents.connect(cp.address, ['rec-restart']);
    const restarted = await ops.post(`/orchestrator/task/${started.body.id}/restart`, [
      scale('rec-restart', 'one'),
      scale('rec-restart', 'two'),
    ]);
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200);
    expect(restarted.body.id).toBe(started.body.id);
    const resent = await operation(back, 0);
    expect(resent.id).toBe(unanswered.id);
    expect(JSON.parse(resent.payload.toString())).toMatchObject({ name: 'two' });
    await succeed(back, resent);
    const done = await taskWhen(started.body.id, (t) => t.status.completed && !t.status.failed);
    // The first step's result was taken from the first run: the agent was not sent it again.
    expect(statuses(done).filter((s: string) => s === 'scaleManifest succeeded')).toHaveLength(2);
    expect(operations(back)).toHaveLength(1);
    // The failure retried is no longer the outcome; the history keeps it.
    expect(done.resultObjects).toEqual([]);
    expect(statuses(done)).toContain(failed.status.status);
  });

  it('restart takes a result that came in after the task failed, sending nothing', async () => {
    const first = await agents.connect(cp.address, ['rec-late']);
    const started = await ops.post('/ops', [scale('rec-late', 'web')]);
    const late = await operation(first, 0);
    await taskWhen(started.body.id, (t) => t.status.completed);
    await succeed(first, late);

    const restarted = await ops.post(`/orchestrator/task/${started.body.id}/restart`, [
      scale('rec-late', 'web'),
    ]);
    expect(restarted.status).toBe(200);
    const done = await taskWhen(started.body.id, (t) => t.status.completed && !t.status.failed);
    expect(statuses(done).at(-1)).toBe('Orchestration completed.');
    expect(operations(first)).toHaveLength(1);
  });
});

describe('PATCH /orchestrator/task/{id}', () => {
  it('fails a running task for a restart, which sends its operation again under its id and finishes it', async () => {
    const agent = await agents.connect(cp.address, ['rec-patch']);
    const started = await ops.post('/ops', [scale('rec-patch', 'web')]);
    const sent = await operation(agent, 0);

    const patched = await ops.patch(`/orchestrator/task/${started.body.id}`, { retry: true });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual({ id: started.body.id, resourceUri: `/task/${started.body.id}` });
    const failed = (await ops.get(`/task/${started.body.id}`)).body;
    expect(failed.status).toMatchObject({ completed: true, failed: true, retryable: true });
    expect(failed.status.status).toBe('Orchestration failed: olaf marked the task failed for a restart');

    const restarted = await ops.post(`/orchestrator/task/${started.body.id}/restart`, [
      scale('rec-patch', 'web'),
    ]);
    expect(restarted.status).toBe(200);
    const resent = await operation(agent, 1);
    expect(resent.id).toBe(sent.id);
    await succeed(agent, resent);
    const done = await taskWhen(started.body.id, (t) => t.status.completed && !t.status.failed);
    expect(statuses(done).slice(-2)).toEqual(['scaleManifest succeeded', 'Orchestration completed.']);
    expect(operations(agent)).toHaveLength(2);
  });

  it('with retry: false leaves a failed task that restart and resume refuse with 409', async () => {
    const agent = await agents.connect(cp.address, ['rec-final']);
    const started = await ops.post('/ops', [scale('rec-final', 'web')]);
    await operation(agent, 0);
    expect((await ops.patch(`/orchestrator/task/${started.body.id}`, { retry: false })).status).toBe(200);
    const task = (await ops.get(`/task/${started.body.id}`)).body;
    expect(task.status).toMatchObject({ failed: true, retryable: false });
    const restart = await ops.post(`/orchestrator/task/${started.body.id}/restart`, []);
    expect(restart.status).toBe(409);
    expect(restart.body.message).toContain('is not retryable');
    expect((await ops.post(`/task/${started.body.id}:resume`)).status).toBe(409);
  });

  it('answers 409 for a completed task, which stays completed', async () => {
    const agent = await agents.connect(cp.address, ['rec-done']);
    const started = await ops.post('/ops', [scale('rec-done', 'web')]);
    await succeed(agent, await operation(agent, 0));
    await taskWhen(started.body.id, (t) => t.status.completed);
    const patched = await ops.patch(`/orchestrator/task/${started.body.id}`, { retry: true });
    expect(patched.status).toBe(409);
    expect((await ops.get(`/task/${started.body.id}`)).body.status).toMatchObject({ failed: false });
    expect((await ops.post(`/orchestrator/task/${started.body.id}/restart`, [])).status).toBe(409);
  });

  it('answers 400 without `retry`, and for a provider other than orchestrator', async () => {
    const agent = await agents.connect(cp.address, ['rec-bad']);
    const started = await ops.post('/ops', [scale('rec-bad', 'web')]);
    await succeed(agent, await operation(agent, 0));
    expect((await ops.patch(`/orchestrator/task/${started.body.id}`, {})).status).toBe(400);
    expect((await ops.patch(`/aws/task/${started.body.id}`, { retry: true })).status).toBe(400);
    expect((await ops.get(`/aws/task/${started.body.id}/owner`)).status).toBe(400);
  });
});

describe('GET /orchestrator/task/{id}/owner and who may recover a task', () => {
  it('names the single cloudctl as the owner, to whoever may read the task', async () => {
    const agent = await agents.connect(cp.address, ['rec-owner']);
    const started = await ops.post('/ops', [scale('rec-owner', 'web')]);
    await succeed(agent, await operation(agent, 0));
    const owner = await ops.get(`/orchestrator/task/${started.body.id}/owner`);
    expect(owner.status).toBe(200);
    expect(owner.body).toEqual({ name: 'cloudctl' });
    // GET /task/{id} names the same owner.
    expect((await ops.get(`/task/${started.body.id}`)).body.ownerId).toBe('cloudctl');
    const dev = apiClient(cp.url, USERS.dev.token);
    expect((await dev.get(`/orchestrator/task/${started.body.id}/owner`)).status).toBe(200);
    const nobody = apiClient(cp.url, USERS.nobody.token);
    expect((await nobody.get(`/orchestrator/task/${started.body.id}/owner`)).status).toBe(404);
    expect((await ops.get('/orchestrator/task/no-such-task/owner')).status).toBe(404);
  });

  it('takes WRITE on the task accounts to fail, restart or resume it: 403 for a reader, 404 for others', async () => {
    const gone = await agents.connect(cp.address, ['rec-perm']);
    gone.close();
    await new Promise((r) => setTimeout(r, 200));
    const started = await ops.post('/ops', [scale('rec-perm', 'web')]);
    await taskWhen(started.body.id, (t) => t.status.completed);
    const id = started.body.id;
    const dev = apiClient(cp.url, USERS.dev.token);
    expect((await dev.patch(`/orchestrator/task/${id}`, { retry: true })).status).toBe(403);
    expect((await dev.post(`/orchestrator/task/${id}/restart`, [])).status).toBe(403);
    expect((await dev.post(`/task/${id}:resume`)).status).toBe(403);
    const nobody = apiClient(cp.url, USERS.nobody.token);
    expect((await nobody.post(`/task/${id}:resume`)).status).toBe(404);
    expect((await ops.post('/task/no-such-task:resume')).status).toBe(404);
    // Refused, nothing moved: still a retryable failure.
    expect((await ops.get(`/task/${id}`)).body.status).toMatchObject({ failed: true, retryable: true });
  });
});
