// The internal operation API: an operation goes down the session of the agent serving the account,
// its result comes back through OperationResults, once; without an answer the wait times out.
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudctlError } from '../../src/cloudctl/index.ts';
import { fromTimestamp } from '../../src/proto/index.ts';
import {
  AGENT_TOKEN,
  helloFor,
  isServiceError,
  startTestControlPlane,
  TestAgent,
  TestAgents,
  type TestControlPlane,
} from './harness.ts';

let cp: TestControlPlane;

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
    const pending = cp.plane.operations.execute({
      account: 'ops-a',
      type: 'scale',
      payload: { replicas: 3 },
    });
    const down = await a.next((m) => m.message === 'operation');
    const op = down.operation;
    expect(op).toMatchObject({ type: 'scale', account: 'ops-a' });
    expect(JSON.parse(op?.payload.toString() ?? '')).toEqual({ replicas: 3 });
    // The default wait is 60 s: the deadline tells the agent when nobody waits any more.
    const deadline = op?.deadline ? fromTimestamp(op.deadline).getTime() : 0;
    expect(deadline - started).toBeGreaterThanOrEqual(59_000);
    expect(deadline - started).toBeLessThanOrEqual(61_000);

    const ack = await a.report({
      operationId: op?.id,
      account: 'ops-a',
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ scaled: true })),
    });
    expect(ack.duplicate).toBe(false);
    expect(await pending).toEqual({
      id: op?.id,
      outcome: 'succeeded',
      result: { scaled: true },
      error: null,
    });
    expect(await cp.plane.store.operations.get(op?.id ?? '')).toMatchObject({
      state: 'succeeded',
      type: 'scale',
    });
  });

  it('acknowledges a redelivered result as a duplicate and keeps the first', async () => {
    const a = await connectedAgent(['ops-b']);
    const pending = cp.plane.operations.execute({ account: 'ops-b', type: 'delete', payload: {} });
    const id = (await a.next((m) => m.message === 'operation')).operation?.id;
    await a.report({ operationId: id, outcome: 'FAILED', error: 'not found' });
    const again = await a.report({ operationId: id, outcome: 'SUCCEEDED' });
    expect(again.duplicate).toBe(true);
    expect(await pending).toMatchObject({ outcome: 'failed', error: 'not found' });
    expect(await cp.plane.store.operations.get(id ?? '')).toMatchObject({
      state: 'failed',
      error: 'not found',
    });
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
      .execute({ account: 'ops-d', type: 'scale', payload: {}, timeoutMs: 300 })
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
      payload: {},
      timeoutMs: 300,
    });
    const id = (await a.next((m) => m.message === 'operation')).operation?.id;
    await new Promise((resolve) => setTimeout(resolve, 800));
    await a.report({ operationId: id, outcome: 'SUCCEEDED' });
    expect(await late).toMatchObject({ id, outcome: 'succeeded' });
    // Nothing reported: the wait ends once the window after the deadline has passed.
    const error = await cp.plane.operations
      .execute({ account: 'ops-grace', type: 'scale', payload: {}, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error instanceof CloudctlError && error.code).toBe('OPERATION_TIMEOUT');
    expect(String(error)).toContain("and the agent's 1500 ms of result retries after it");
    expect(Date.now() - started).toBeGreaterThanOrEqual(800 + 1800 - 20);
  });

  it('fails at once when no connected agent serves the account', async () => {
    const error = await cp.plane.operations
      .execute({ account: 'nobody', type: 'scale', payload: {} })
      .catch((e: unknown) => e);
    expect(error instanceof CloudctlError && error.code).toBe('AGENT_NOT_CONNECTED');
  });
});
