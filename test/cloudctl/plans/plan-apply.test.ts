// What cloudctl sends and stores when a plan is applied, seen from the agent's end of real gRPC (a
// test agent answering as the contract says): the plan is asked of the agent as a `plan` operation,
// the apply asks `versions` first and then sends the stored step with the versions the plan saw as
// `expect`; an agent's PRECONDITION_FAILED fails the task in words that name the object; and a plan
// is in the database, so a cloudctl started again on it still answers it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkResult, isOperationType } from '../../../src/contract/index.ts';
import type { ControlMessage__Output } from '../../../src/proto/index.ts';
import { startTestControlPlane, TestAgents, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const ACCOUNT = 'plan-unit';
const testAgents = new TestAgents();
afterEach(() => testAgents.closeAll());

const scale = { account: ACCOUNT, manifestName: 'deployment web', location: 'default', replicas: 3 };

const web = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', resourceVersion: '7' },
  spec: { replicas },
});

/** The agent's plan of the scale: the Deployment at resourceVersion 7, from 2 replicas to 3. */
const planResult = {
  objects: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'default',
      name: 'web',
      action: 'update',
      resourceVersion: '7',
      live: web(2),
      planned: web(3),
      dryRun: { allowed: true },
      access: [
        {
          verb: 'patch',
          group: 'apps',
          resource: 'deployments',
          subresource: 'scale',
          namespace: 'default',
          allowed: true,
        },
      ],
      unknown: [],
    },
  ],
  unknown: [],
};

type Operation = NonNullable<ControlMessage__Output['operation']>;

/** Answers the agent's first operation of `type` with `result`, checked against the contract. */
async function answer(
  agent: Awaited<ReturnType<TestAgents['connect']>>,
  type: string,
  result: unknown,
): Promise<Operation> {
  const received = await agent.next((m) => m.operation?.type === type, 20_000);
  const op = received.operation;
  if (op == null || !isOperationType(op.type)) throw new Error(`no ${type} operation`);
  const checked = checkResult(op.type, result);
  if (!checked.ok)
    throw new Error(`a ${type} result off the contract at ${checked.path}: ${checked.message}`);
  await agent.report({
    operationId: op.id,
    account: op.account,
    outcome: 'SUCCEEDED',
    result: Buffer.from(JSON.stringify(result)),
  });
  return op;
}

async function taskWhenDone(client: ApiClient, id: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const task = await client.get(`/task/${id}`);
    if (task.body.status.completed) return task.body;
    if (Date.now() > deadline) throw new Error(`task ${id} not done: ${JSON.stringify(task.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('applying a plan', () => {
  it('sends the stored step with the versions the plan saw, and words a PRECONDITION_FAILED with the object; a restarted cloudctl still has the plan', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cloudctl-plans-'));
    try {
      const first = await startTestControlPlane({ database: { dataDir } });
      let planId = '';
      try {
        const agent = await testAgents.connect(first.address, [ACCOUNT]);
        const client = apiClient(first.url, USERS.ops.token);
        const planning = client.post('/plans', [{ scaleManifest: scale }]);
        const asked = await answer(agent, 'plan', planResult);
        expect(JSON.parse(asked.payload.toString())).toMatchObject({
          operation: { type: 'scale', payload: { kind: 'Deployment', name: 'web', replicas: 3 } },
        });
        const planned = await planning;
        expect(planned.status, JSON.stringify(planned.body)).toBe(201);
        planId = planned.body.id;
        expect(planned.body.operations[0]).toMatchObject({
          name: 'scaleManifest',
          account: ACCOUNT,
          objects: [
            {
              action: 'update',
              resourceVersion: '7',
              diff: [{ path: 'spec.replicas', before: 2, after: 3 }],
            },
          ],
        });
        // Nothing but the plan was sent: no write.
        expect(agent.received.filter((m) => m.operation !== undefined).map((m) => m.operation?.type)).toEqual(
          ['plan'],
        );

        const applying = client.post(planned.body.applyUri);
        const versions = await answer(agent, 'versions', { versions: ['7'] });
        expect(JSON.parse(versions.payload.toString())).toEqual({
          objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }],
        });
        const applied = await applying;
        expect(applied.status, JSON.stringify(applied.body)).toBe(200);
        const write = await agent.next((m) => m.operation?.type === 'scale', 20_000);
        expect(JSON.parse(write.operation?.payload.toString() ?? '{}')).toMatchObject({
          name: 'web',
          replicas: 3,
          expect: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              namespace: 'default',
              name: 'web',
              resourceVersion: '7',
            },
          ],
        });
        // The object moved between the check and the write: the agent refuses, and the task says why.
        const moved = 'Deployment default/web: resourceVersion 7 when planned, 9 now';
        await agent.report({
          operationId: write.operation?.id,
          account: ACCOUNT,
          outcome: 'FAILED',
          error: moved,
          errorCode: 'PRECONDITION_FAILED',
        });
        const task = await taskWhenDone(client, applied.body.id);
        expect(task.status.failed).toBe(true);
        expect(task.status.status).toContain(
          `scaleManifest failed on account ${ACCOUNT}: PRECONDITION_FAILED: ${moved}`,
        );
      } finally {
        await first.close();
      }

      const second = await startTestControlPlane({ database: { dataDir } });
      try {
        const again = await apiClient(second.url, USERS.ops.token).get(`/plans/${planId}`);
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ id: planId, state: 'applied', createdBy: USERS.ops.name });
        expect(again.body.operations[0].objects[0].diff).toEqual([
          { path: 'spec.replicas', before: 2, after: 3 },
        ]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
