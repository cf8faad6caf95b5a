// The internal operation API: an operation goes down the session of the agent serving the account,
// its result comes back through OperationResults, once; without an answer the wait times out.
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudctlError, hashToken } from '../../src/cloudctl/index.ts';
import { fromTimestamp } from '../../src/proto/index.ts';
import {
  AGENT_TOKEN,
  helloFor,
  isServiceError,
  startTestControlPlane,
  TestAgent,
  TestAgents,
  type TestControlPlane,
  USERS,
} from './harness.ts';

let cp: TestControlPlane;

/** A scale of a Deployment: the payload the tests send; the test agents report its result. */
const SCALE_WEB = { kind: 'Deployment', namespace: 'shop', name: 'web', replicas: 3 } as const;

const testAgents = new TestAgents();
const connectedAgent = (accounts: string[]) => testAgents.connect(cp.address, accounts);

beforeAll(async () => {
  cp = await startTestControlPlane();
});

afterEach(() => {
  testAgents.closeAll();
});

afterAll(async () => {
  await cp?.close();
});

describe('operations through the internal API', () => {
  it('reaches the agent serving the account and returns the result it reports', async () => {
    const a = await connectedAgent(['ops-a']);
    const started = Date.now();
    const pending = cp.plane.operations.execute({ account: 'ops-a', type: 'scale', payload: SCALE_WEB });
    const down = await a.next((m) => m.message === 'operation');
    const op = down.operation;
    expect(op).toMatchObject({ type: 'scale', account: 'ops-a' });
    expect(JSON.parse(op?.payload.toString() ?? '')).toEqual(SCALE_WEB);
    // The default wait is 60 s: the deadline tells the agent when nobody waits any more.
    const deadline = op?.deadline ? fromTimestamp(op.deadline).getTime() : 0;
    expect(deadline - started).toBeGreaterThanOrEqual(59_000);
    expect(deadline - started).toBeLessThanOrEqual(61_000);

    const ack = await a.report({
      operationId: op?.id,
      account: 'ops-a',
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ replicas: 3 })),
    });
    expect(ack.duplicate).toBe(false);
    expect(await pending).toEqual({ id: op?.id, outcome: 'succeeded', result: { replicas: 3 } });
    expect(await cp.plane.store.operations.get(op?.id ?? '')).toMatchObject({
      state: 'succeeded',
      type: 'scale',
      result: { replicas: 3 },
      error: null,
    });
  });

  it('acknowledges a redelivered result as a duplicate and keeps the first', async () => {
    const a = await connectedAgent(['ops-b']);
    const pending = cp.plane.operations.execute({
      account: 'ops-b',
      type: 'delete',
      payload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
    });
    const id = (await a.next((m) => m.message === 'operation')).operation?.id;
    const notFound = { code: 'NOT_FOUND', message: 'deployments.apps "web" not found' } as const;
    await a.report({ operationId: id, outcome: 'FAILED', error: notFound.message, errorCode: notFound.code });
    const again = await a.report({
      operationId: id,
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ deleted: true, gone: true })),
    });
    expect(again.duplicate).toBe(true);
    expect(await pending).toEqual({ id, outcome: 'failed', error: notFound });
    expect(await cp.plane.store.operations.get(id ?? '')).toMatchObject({
      state: 'failed',
      result: null,
      error: notFound,
    });
  });

  it('sends an operation whose id its caller stored while writing its row, and records a result reported at once', async () => {
    const a = await connectedAgent(['ops-early']);
    const pending = cp.plane.operations.execute({
      id: 'early-1',
      account: 'ops-early',
      type: 'scale',
      payload: SCALE_WEB,
      idStoredByCaller: true,
    });
    const id = (await a.next((m) => m.message === 'operation')).operation?.id;
    expect(id).toBe('early-1');
    // Reported the moment it arrives: the result waits for the row, it is not refused as never sent.
    const ack = await a.report({
      operationId: id,
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ replicas: 3 })),
    });
    expect(ack.duplicate).toBe(false);
    expect(await pending).toEqual({ id, outcome: 'succeeded', result: { replicas: 3 } });
    expect(await cp.plane.store.operations.get('early-1')).toMatchObject({ state: 'succeeded' });
  });

  it('fails as OPERATION_UNRECORDED, the outcome unknown, when an operation sent while writing its row cannot be stored', async () => {
    const a = await connectedAgent(['ops-unrecorded']);
    // A row under the id already: the second write of it fails, after the operation went out.
    await cp.plane.store.operations.create(
      {
        id: 'taken-1',
        account: 'ops-unrecorded',
        agentId: 'someone',
        type: 'scale',
        payload: JSON.stringify(SCALE_WEB),
        deadline: new Date(Date.now() + 60_000),
      },
      new Date(),
    );
    const pending = cp.plane.operations
      .execute({
        id: 'taken-1',
        account: 'ops-unrecorded',
        type: 'scale',
        payload: SCALE_WEB,
        idStoredByCaller: true,
      })
      .catch((e: unknown) => e);
    expect((await a.next((m) => m.message === 'operation')).operation?.id).toBe('taken-1');
    const error = await pending;
    expect(error).toBeInstanceOf(CloudctlError);
    expect(error).toMatchObject({ code: 'OPERATION_UNRECORDED' });
    expect(String((error as Error).message)).toMatch(/went to the agent, but cloudctl could not store it/);
  });

  it("answers NOT_FOUND to another agent's result for an operation, and waits for its own agent's", async () => {
    const otherToken = 'token-of-agent-2-77d1';
    const two = await startTestControlPlane({
      agents: [
        { id: 'agent-1', tokenHash: hashToken(AGENT_TOKEN) },
        { id: 'agent-2', tokenHash: hashToken(otherToken) },
      ],
    });
    const own = testAgents.track(new TestAgent(two.address, { token: AGENT_TOKEN }));
    const other = testAgents.track(new TestAgent(two.address, { token: otherToken }));
    try {
      await own.connect(helloFor('agent-1', ['ops-own']));
      await other.connect(helloFor('agent-2', ['ops-other']));
      const pending = two.plane.operations.execute({ account: 'ops-own', type: 'scale', payload: SCALE_WEB });
      const id = (await own.next((m) => m.message === 'operation')).operation?.id;
      // Its result is not taken, here or in the store, from an agent the operation did not go to.
      const error = await other
        .report({
          operationId: id,
          outcome: 'SUCCEEDED',
          result: Buffer.from(JSON.stringify({ replicas: 9 })),
        })
        .catch((e: unknown) => e);
      expect(isServiceError(error) && error.code).toBe(status.NOT_FOUND);
      await own.report({
        operationId: id,
        outcome: 'SUCCEEDED',
        result: Buffer.from(JSON.stringify({ replicas: 3 })),
      });
      expect(await pending).toEqual({ id, outcome: 'succeeded', result: { replicas: 3 } });
      expect(await two.plane.store.operations.get(id ?? '')).toMatchObject({ result: { replicas: 3 } });
    } finally {
      await two.close();
    }
  });

  it('answers NOT_FOUND for a result of an operation never sent', async () => {
    const a = await connectedAgent(['ops-c']);
    const error = await a
      .report({ operationId: 'never-sent', outcome: 'SUCCEEDED' })
      .catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe(status.NOT_FOUND);
  });

  it('times out when the agent does not answer, and marks the operation', async () => {
    const a = await connectedAgent(['ops-d']);
    const started = Date.now();
    const error = await cp.plane.operations
      .execute({ account: 'ops-d', type: 'scale', payload: SCALE_WEB, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudctlError);
    expect(error instanceof CloudctlError && error.code).toBe('OPERATION_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const id = (await a.next((m) => m.message === 'operation')).operation?.id ?? '';
    await expect.poll(async () => (await cp.plane.store.operations.get(id))?.state).toBe('timed_out');
  });

  it("waits past the deadline for the agent's result retry window, and no longer", async () => {
    const a = testAgents.track(new TestAgent(cp.address, { token: AGENT_TOKEN }));
    await a.connect({ ...helloFor('agent-1', ['ops-grace']), resultRetryWindowMs: 1500 });
    const started = Date.now();
    // A result reported after the deadline, within the window: what a delivery retry looks like.
    const late = cp.plane.operations.execute({
      account: 'ops-grace',
      type: 'scale',
      payload: SCALE_WEB,
      timeoutMs: 300,
    });
    const id = (await a.next((m) => m.message === 'operation')).operation?.id;
    await new Promise((resolve) => setTimeout(resolve, 800));
    await a.report({ operationId: id, outcome: 'SUCCEEDED', result: Buffer.from('{"replicas":3}') });
    expect(await late).toEqual({ id, outcome: 'succeeded', result: { replicas: 3 } });
    // Nothing reported: the wait ends once the window after the deadline has passed.
    const error = await cp.plane.operations
      .execute({ account: 'ops-grace', type: 'scale', payload: SCALE_WEB, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error instanceof CloudctlError && error.code).toBe('OPERATION_TIMEOUT');
    expect(String(error)).toContain("and the agent's 1500 ms of result retries after it");
    expect(Date.now() - started).toBeGreaterThanOrEqual(800 + 1800 - 20);
  });

  it('fails at once when no connected agent serves the account', async () => {
    const error = await cp.plane.operations
      .execute({ account: 'nobody', type: 'scale', payload: SCALE_WEB })
      .catch((e: unknown) => e);
    expect(error instanceof CloudctlError && error.code).toBe('AGENT_NOT_CONNECTED');
  });
});

describe('failures as the agent reports them', () => {
  /** Sends a scale on `account` through a freshly connected test agent; resolves once it is down. */
  async function scaleSent(account: string) {
    const agent = await connectedAgent([account]);
    const pending = cp.plane.operations.execute({ account, type: 'scale', payload: SCALE_WEB });
    const id = (await agent.next((m) => m.message === 'operation')).operation?.id ?? '';
    return { agent, pending, id };
  }

  it("hands the caller the agent's code, message and path, and stores all three", async () => {
    const { agent, pending, id } = await scaleSent('ops-coded');
    await agent.report({
      operationId: id,
      outcome: 'FAILED',
      error: 'deployments.apps "web" not found',
      errorCode: 'NOT_FOUND',
      errorPath: 'name',
    });
    const error = { code: 'NOT_FOUND', message: 'deployments.apps "web" not found', path: 'name' };
    expect(await pending).toEqual({ id, outcome: 'failed', error });
    expect(await cp.plane.store.operations.get(id)).toMatchObject({ state: 'failed', error });
    // The status page shows it as people read it: the code first, the field last.
    const page = await fetch(`${cp.url}/status/accounts/ops-coded`, {
      headers: { authorization: `Bearer ${USERS.admin.token}` },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(
      '<div class="message">NOT_FOUND: deployments.apps &quot;web&quot; not found (at name)</div>',
    );
  });

  it('reads a failure reported without a code (an agent older than the code) as FAILED', async () => {
    const { agent, pending, id } = await scaleSent('ops-uncoded');
    await agent.report({ operationId: id, outcome: 'FAILED', error: 'the API server said no' });
    const error = { code: 'FAILED', message: 'the API server said no' };
    expect(await pending).toEqual({ id, outcome: 'failed', error });
    expect(await cp.plane.store.operations.get(id)).toMatchObject({ state: 'failed', error });
  });

  it('reads a code this cloudctl does not know (a newer agent) as FAILED, keeping the message', async () => {
    const { agent, pending, id } = await scaleSent('ops-newer');
    await agent.report({
      operationId: id,
      outcome: 'FAILED',
      error: 'the namespace quota allows 2 replicas',
      errorCode: 'QUOTA_EXCEEDED',
    });
    expect(await pending).toEqual({
      id,
      outcome: 'failed',
      error: { code: 'FAILED', message: 'QUOTA_EXCEEDED: the namespace quota allows 2 replicas' },
    });
  });

  it("fails a success whose result does not match its type's schema as INVALID_RESULT, naming the field", async () => {
    const counted = async (outcome: string) =>
      (await cp.plane.metrics.operations.get()).values.find(
        (v) => v.labels.type === 'scale' && v.labels.outcome === outcome,
      )?.value ?? 0;
    const [succeeded, failed] = [await counted('succeeded'), await counted('failed')];
    const { agent, pending, id } = await scaleSent('ops-off-contract');
    await agent.report({
      operationId: id,
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ replicas: 'three' })),
    });
    const outcome = await pending;
    expect(outcome).toMatchObject({ id, outcome: 'failed', error: { code: 'INVALID_RESULT' } });
    expect(outcome.outcome === 'failed' && outcome.error.message).toContain(
      "the agent's scale result does not match the contract at replicas",
    );
    // Counted as its caller saw it: a failure.
    expect([await counted('succeeded'), await counted('failed')]).toEqual([succeeded, failed + 1]);
    // Read again from the store (a task after a restart), it is the same failure.
    expect(await cp.plane.operations.await(id, 'scale')).toEqual(outcome);
  });
});
