// POST /ops and /ops/{name} start tasks that carry Spinnaker-named operations to the agent serving
// the account; GET /task/{id} follows them. A test agent on real gRPC receives the operations and
// reports results; requests go over real HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkResult, isOperationType, type OperationType } from '../../../src/contract/index.ts';
import type { ControlMessage__Output } from '../../../src/proto/index.ts';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  TestAgents,
  type TestControlPlane,
  USERS,
} from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

let cp: TestControlPlane;
let ops: ApiClient;

const deployment = (name: string, namespace = 'default') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: { replicas: 1 },
});

const testAgents = new TestAgents();
const connectedAgent = (address: string, accounts: string[]) => testAgents.connect(address, accounts);

/** What the agent reports for an operation it carried out, by type: a result its schema accepts. */
function resultFor(type: OperationType, payload: Record<string, unknown>): unknown {
  switch (type) {
    case 'scale':
      return { replicas: payload.replicas };
    case 'rollout':
      return { action: payload.action };
    case 'delete':
      return { deleted: true, gone: false };
    case 'patch':
      return { object: { apiVersion: payload.apiVersion, kind: payload.kind }, gone: false };
    case 'deploy':
      return { applied: [] };
    default:
      throw new Error(`no stand-in result for a ${type} operation`);
  }
}

/**
 * Answers the next operation the agent receives with success and the given result (one its type's
 * schema accepts, by default); a result off the contract fails the test here, not in cloudctl.
 */
async function succeedNext(
  agent: TestAgent,
  given?: unknown,
  skip = 0,
): Promise<ControlMessage__Output['operation']> {
  const received = await agent.next((m) => m.message === 'operation' && skip-- <= 0);
  const op = received.operation;
  const type = op?.type ?? '';
  if (!isOperationType(type)) throw new Error(`the agent received an operation of unknown type '${type}'`);
  const result = given ?? resultFor(type, JSON.parse(op?.payload.toString() ?? '{}'));
  const checked = checkResult(type, result);
  if (!checked.ok)
    throw new Error(`a ${type} result off the contract at ${checked.path}: ${checked.message}`);
  await agent.report({
    operationId: op?.id,
    account: op?.account,
    outcome: 'SUCCEEDED',
    result: Buffer.from(JSON.stringify(result)),
  });
  return op;
}

async function taskWhen(
  client: ApiClient,
  id: string,
  done: (task: { status: { completed: boolean } }) => boolean,
) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await client.get(`/task/${id}`);
    expect(answer.status).toBe(200);
    if (done(answer.body)) return answer.body;
    if (Date.now() > deadline)
      throw new Error(`task ${id} did not get there: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

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

describe('POST /ops', () => {
  it('deploys through the agent and reports the created manifests in the task', async () => {
    const agent = await connectedAgent(cp.address, ['ops-deploy']);
    const posted = ops.post('/ops', [
      {
        deployManifest: {
          account: 'ops-deploy',
          cloudProvider: 'orchestrator',
          source: 'text',
          namespaceOverride: 'team-a',
          moniker: { app: 'web' },
          manifests: [
            deployment('web'),
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
          ],
          trafficManagement: { enabled: false },
        },
      },
    ]);
    // Before it answers, cloudctl asks the agent where the account's manifests may go.
    const describe = await succeedNext(agent, {
      defaultNamespace: 'default',
      namespaces: [],
      omitNamespaces: [],
    });
    expect(describe?.type).toBe('describeAccount');
    const started = await posted;
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ id: expect.any(String), resourceUri: `/task/${started.body.id}` });

    const op = await succeedNext(agent, { applied: [] }, 1);
    expect(op?.type).toBe('deploy');
    const payload = JSON.parse(op?.payload.toString() ?? '{}');
    // Namespaces go first; cluster-scoped kinds keep no namespace.
    expect(payload.manifests[0].kind).toBe('Namespace');
    expect(payload.manifests[0].metadata.namespace).toBeUndefined();
    expect(payload.manifests[1].metadata).toEqual({
      name: 'web',
      namespace: 'team-a',
      annotations: {
        'moniker.spinnaker.io/application': 'web',
        'moniker.spinnaker.io/cluster': 'deployment web',
        'artifact.spinnaker.io/name': 'web',
        'artifact.spinnaker.io/type': 'orchestrator/deployment',
        'artifact.spinnaker.io/location': 'team-a',
        // Every object cloudctl deploys carries the hash of its content: the mark drift is read by.
        'deploy.vendor.io/content-hash': expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      labels: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'spinnaker' },
    });

    const task = await taskWhen(ops, started.body.id, (t) => t.status.completed);
    expect(task.status).toMatchObject({ completed: true, complete: true, failed: false, retryable: false });
    expect(task.user).toBe(USERS.ops.name);
    expect(task.history.at(-1)).toEqual({ phase: 'ORCHESTRATION', status: 'Orchestration completed.' });
    expect(task.resultObjects).toHaveLength(1);
    expect(task.resultObjects[0].manifestNamesByNamespace).toEqual({
      'team-a': ['deployment web'],
      '': ['namespace team-a'],
    });
    expect(task.resultObjects[0].manifests[1].metadata.namespace).toBe('team-a');
    // What it applied is recorded with the completion, for re-apply: in once a client sees it done.
    const key = {
      account: 'ops-deploy',
      group: 'apps',
      kind: 'Deployment',
      namespace: 'team-a',
      name: 'web',
    };
    expect(await cp.plane.store.deployed.get(key)).toMatchObject({ manifest: payload.manifests[1] });
    expect(task.resultObjects[0].createdArtifacts).toEqual([
      {
        type: 'orchestrator/namespace',
        name: 'team-a',
        reference: 'team-a',
        location: '',
        version: '',
        metadata: { account: 'ops-deploy' },
        customKind: false,
      },
      {
        type: 'orchestrator/deployment',
        name: 'web',
        reference: 'web',
        location: 'team-a',
        version: '',
        metadata: { account: 'ops-deploy' },
        customKind: false,
      },
    ]);
  });

  it('runs the operations of one request in order, as one task', async () => {
    const agent = await connectedAgent(cp.address, ['ops-order']);
    const started = await ops.post('/ops', [
      {
        scaleManifest: {
          account: 'ops-order',
          manifestName: 'deployment web',
          location: 'default',
          replicas: 3,
        },
      },
      {
        rollingRestartManifest: { account: 'ops-order', manifestName: 'deployment web', location: 'default' },
      },
    ]);
    expect(started.status).toBe(200);
    const first = await succeedNext(agent);
    expect(first?.type).toBe('scale');
    expect(JSON.parse(first?.payload.toString() ?? '')).toEqual({
      kind: 'Deployment',
      namespace: 'default',
      name: 'web',
      replicas: 3,
    });
    const second = await succeedNext(agent, undefined, 1);
    expect(second?.type).toBe('rollout');
    expect(JSON.parse(second?.payload.toString() ?? '')).toEqual({
      action: 'restart',
      kind: 'Deployment',
      namespace: 'default',
      name: 'web',
    });
    const task = await taskWhen(ops, started.body.id, (t) => t.status.completed);
    expect(task.history.map((h: { phase: string }) => h.phase)).toEqual([
      'ORCHESTRATION',
      'SCALE_ORCHESTRATOR_MANIFEST',
      'SCALE_ORCHESTRATOR_MANIFEST',
      'ROLLING_RESTART_ORCHESTRATOR_MANIFEST',
      'ROLLING_RESTART_ORCHESTRATOR_MANIFEST',
      'ORCHESTRATION',
    ]);
  });

  it('maps deleteManifest, patchManifest and undoRolloutManifest onto the agent operations', async () => {
    const agent = await connectedAgent(cp.address, ['ops-map']);
    const started = await ops.post('/ops', [
      {
        deleteManifest: {
          account: 'ops-map',
          manifestName: 'configMap settings',
          location: 'default',
          options: { cascading: false, gracePeriodSeconds: 5 },
        },
      },
      {
        patchManifest: {
          account: 'ops-map',
          manifestName: 'svc web',
          location: 'default',
          options: { mergeStrategy: 'merge' },
          patchBody: { metadata: { labels: { a: 'b' } } },
        },
      },
      {
        undoRolloutManifest: {
          account: 'ops-map',
          manifestName: 'deployment web',
          location: 'default',
          revision: 2,
        },
      },
    ]);
    expect(started.status).toBe(200);
    const payloads = [];
    for (let i = 0; i < 3; i++) {
      const op = await succeedNext(agent, undefined, i);
      payloads.push({ type: op?.type, payload: JSON.parse(op?.payload.toString() ?? '') });
    }
    expect(payloads).toEqual([
      {
        type: 'delete',
        payload: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'default',
          name: 'settings',
          propagationPolicy: 'Orphan',
          gracePeriodSeconds: 5,
        },
      },
      {
        type: 'patch',
        payload: {
          apiVersion: 'v1',
          kind: 'Service',
          namespace: 'default',
          name: 'web',
          patchType: 'merge',
          patch: { metadata: { labels: { a: 'b' } } },
        },
      },
      {
        type: 'rollout',
        payload: { action: 'undo', kind: 'Deployment', namespace: 'default', name: 'web', toRevision: 2 },
      },
    ]);
  });

  it('POST /ops/{name} takes one operation as the body', async () => {
    const agent = await connectedAgent(cp.address, ['ops-single']);
    const started = await ops.post('/ops/pauseRolloutManifest', {
      account: 'ops-single',
      manifestName: 'deployment web',
      location: 'prod',
    });
    expect(started.status).toBe(200);
    const op = await succeedNext(agent);
    expect(JSON.parse(op?.payload.toString() ?? '')).toEqual({
      action: 'pause',
      kind: 'Deployment',
      namespace: 'prod',
      name: 'web',
    });
    await taskWhen(ops, started.body.id, (t) => t.status.completed);
  });

  it('returns the same task for a retry with the same clientRequestId, without running it again', async () => {
    const agent = await connectedAgent(cp.address, ['ops-retry']);
    const body = [
      {
        scaleManifest: {
          account: 'ops-retry',
          manifestName: 'deployment web',
          location: 'default',
          replicas: 2,
        },
      },
    ];
    const first = await ops.post('/ops?clientRequestId=retry-1', body);
    await succeedNext(agent);
    await taskWhen(ops, first.body.id, (t) => t.status.completed);
    const retry = await ops.post('/ops?clientRequestId=retry-1', body);
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(first.body.id);
    const other = await ops.post('/ops?clientRequestId=retry-2', body);
    expect(other.body.id).not.toBe(first.body.id);
    await succeedNext(agent, undefined, 1);
    expect(agent.received.filter((m) => m.message === 'operation')).toHaveLength(2);
  });

  it('fails the task and says why when the agent reports a failure', async () => {
    const agent = await connectedAgent(cp.address, ['ops-fail']);
    const started = await ops.post('/ops/scaleManifest', {
      account: 'ops-fail',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 1,
    });
    const received = await agent.next((m) => m.message === 'operation');
    await agent.report({
      operationId: received.operation?.id,
      account: 'ops-fail',
      outcome: 'FAILED',
      error: 'deployments.apps "web" not found',
      errorCode: 'NOT_FOUND',
    });
    const task = await taskWhen(ops, started.body.id, (t) => t.status.completed);
    expect(task.status).toMatchObject({ completed: true, failed: true });
    expect(task.status.status).toContain(
      'scaleManifest failed on account ops-fail: NOT_FOUND: deployments.apps "web" not found',
    );
    expect(task.resultObjects.at(-1)).toMatchObject({ type: 'EXCEPTION', operation: 'scaleManifest' });
  });

  it('completes a deploy whose record of what it applied the database refuses, and logs why', async () => {
    const agent = await connectedAgent(cp.address, ['ops-unrecorded-deploy']);
    // A real refusal: the record's statement names a table the database does not have.
    const refused = vi
      .spyOn(cp.plane.store.deployed, 'recordDeployed')
      .mockReturnValue(sql<Record<string, unknown>>`insert into no_such_table values (1)`);
    try {
      const posted = ops.post('/ops', [
        {
          deployManifest: {
            account: 'ops-unrecorded-deploy',
            cloudProvider: 'orchestrator',
            source: 'text',
            manifests: [deployment('kept')],
          },
        },
      ]);
      await succeedNext(agent, { defaultNamespace: 'default', namespaces: [], omitNamespaces: [] });
      const started = await posted;
      await succeedNext(agent, { applied: [] }, 1);
      const task = await taskWhen(ops, started.body.id, (t) => t.status.completed);
      expect(task.status).toMatchObject({ completed: true, failed: false });
      expect(refused).toHaveBeenCalled();
      const warning = cp.logs.find((l) => l.msg === 'cannot record the manifests a deploy applied');
      expect(warning).toMatchObject({ taskId: started.body.id, account: 'ops-unrecorded-deploy' });
      expect(JSON.stringify(warning?.err)).toContain('no_such_table');
    } finally {
      refused.mockRestore();
    }
  });

  it('fails the task with a message naming the account when no agent serves it', async () => {
    // Registered once, then gone: the account is known, its agent is not connected.
    const agent = await connectedAgent(cp.address, ['ops-gone']);
    agent.close();
    await new Promise((r) => setTimeout(r, 200));
    const started = await ops.post('/ops/scaleManifest', {
      account: 'ops-gone',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 1,
    });
    expect(started.status).toBe(200);
    const task = await taskWhen(ops, started.body.id, (t) => t.status.completed);
    expect(task.status.failed).toBe(true);
    expect(task.status.status).toBe(
      'Orchestration failed: no connected agent serves account ops-gone: scaleManifest was not sent, nothing changed',
    );
  });
});

describe('what POST /ops refuses', () => {
  it('answers 401 with WWW-Authenticate without a token, and never echoes a token', async () => {
    const answer = await apiClient(cp.url).post('/ops', []);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="cloudctl"');
    const bad = await apiClient(cp.url, 'not-a-known-token-c0ffee').post('/ops', []);
    expect(bad.status).toBe(401);
    expect(JSON.stringify(bad.body)).not.toContain('c0ffee');
    expect(JSON.stringify(cp.logs)).not.toContain('c0ffee');
  });

  it('answers 403 when the user may not write the account, and starts nothing', async () => {
    const agent = await connectedAgent(cp.address, ['ops-forbidden']);
    const dev = apiClient(cp.url, USERS.dev.token);
    const answer = await dev.post('/ops/scaleManifest', {
      account: 'ops-forbidden',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 1,
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      status: 403,
      error: 'Forbidden',
      code: 'FORBIDDEN',
      path: '/ops/scaleManifest',
    });
    expect(answer.body.message).toBe('dana may not change account ops-forbidden');
    // The admin may, whatever the account's permissions.
    const admin = await apiClient(cp.url, USERS.admin.token).post('/ops/scaleManifest', {
      account: 'ops-forbidden',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 1,
    });
    expect(admin.status).toBe(200);
    await succeedNext(agent);
    expect(agent.received.filter((m) => m.message === 'operation')).toHaveLength(1);
  });

  it.each([
    [[], 'body: Too small'],
    [
      [{ deployManifest: { account: 'x', manifests: [{ kind: 'Deployment', metadata: { name: 'a' } }] } }],
      'body[0].deployManifest.manifests[0].apiVersion',
    ],
    [
      [{ scaleManifest: { account: 'x', manifestName: 'web', location: 'default', replicas: 1 } }],
      'body[0].scaleManifest.manifestName: expected "<kind> <name>"',
    ],
    [
      [
        {
          scaleManifest: { account: 'x', manifestName: 'deployment web', location: 'default', replicas: -1 },
        },
      ],
      'body[0].scaleManifest.replicas',
    ],
    [
      [{ scaleManifest: { account: 'x', manifestName: 'configMap web', location: 'default', replicas: 1 } }],
      'body[0].scaleManifest.manifestName: a configMap cannot be scaled',
    ],
    [[{ launchRocket: { account: 'x' } }], "body[0].launchRocket: unknown operation 'launchRocket'"],
    [
      [{ scaleManifest: {}, deleteManifest: {} }],
      'body[0]: expected one operation name as the only key, found 2',
    ],
    [
      [
        {
          scaleManifest: {
            account: 'no-such-account',
            manifestName: 'deployment web',
            location: 'default',
            replicas: 1,
          },
        },
      ],
      'body[0].scaleManifest.account: no account named no-such-account',
    ],
    [
      [
        {
          patchManifest: {
            account: 'x',
            manifestName: 'deployment web',
            location: 'd',
            options: { mergeStrategy: 'json' },
            patchBody: { a: 1 },
          },
        },
      ],
      'body[0].patchManifest.patchBody: a json patch is a list of operations',
    ],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const answer = await ops.post('/ops', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 400, code: 'REQUEST_INVALID', path: '/ops' });
    expect(answer.body.message).toContain(message);
  });

  it('answers 400 naming the path parameter for an unknown operation name', async () => {
    const answer = await ops.post('/ops/launchRocket', { account: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^path parameter name: .*deployManifest/);
  });

  it('answers 400 naming the query parameter for a bad clientRequestId', async () => {
    const answer = await ops.post(`/ops?clientRequestId=${'x'.repeat(300)}`, [{ scaleManifest: {} }]);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^query parameter clientRequestId: /);
  });

  it('shows a task only to users who may read its accounts, in GET /task/{id} and GET /task', async () => {
    const agent = await connectedAgent(cp.address, ['ops-visible']);
    const first = await ops.post('/ops/scaleManifest', {
      account: 'ops-visible',
      manifestName: 'deployment a',
      location: 'default',
      replicas: 1,
    });
    await succeedNext(agent);
    const second = await ops.post('/ops/scaleManifest', {
      account: 'ops-visible',
      manifestName: 'deployment b',
      location: 'default',
      replicas: 1,
    });
    await succeedNext(agent, undefined, 1);
    const newest = await apiClient(cp.url, USERS.dev.token).get('/task?limit=2');
    expect(newest.status).toBe(200);
    expect(newest.body.map((t: { id: string }) => t.id)).toEqual([second.body.id, first.body.id]);
    const nobody = apiClient(cp.url, USERS.nobody.token);
    expect((await nobody.get('/task')).body).toEqual([]);
    expect((await nobody.get(`/task/${first.body.id}`)).status).toBe(404);
  });

  it('answers 404 for a task that does not exist', async () => {
    const answer = await ops.get('/task/no-such-task');
    expect(answer.status).toBe(404);
    expect(answer.body.message).toBe('Task not found (id: no-such-task)');
  });
});

describe('tasks across a cloudctl restart', () => {
  it("completes a task stopped between its last step's result and its completion, without sending the operation again", async () => {
    // A task's last step is saved with its completion (task-runner.ts): a stop in between leaves the
    // task STARTED at that step, with its operation's result stored. Made here by putting a finished
    // task back in that state through the store, then starting cloudctl again on the same database.
    const dataDir = mkdtempSync(join(tmpdir(), 'cloudctl-tasks-'));
    try {
      const first = await startTestControlPlane({ database: { dataDir } });
      const firstAgent = new TestAgent(first.address, { token: AGENT_TOKEN });
      await firstAgent.connect(helloFor('agent-1', ['ops-gap']));
      const started = await apiClient(first.url, USERS.ops.token).post('/ops/deleteManifest', {
        account: 'ops-gap',
        manifestName: 'configMap settings',
        location: 'default',
      });
      await succeedNext(firstAgent);
      const finished = await taskWhen(
        apiClient(first.url, USERS.ops.token),
        started.body.id,
        (t) => t.status.completed,
      );
      const stored = await first.plane.store.tasks.get(started.body.id);
      if (stored === undefined) throw new Error('task not stored');
      await first.plane.store.tasks.update(
        stored.id,
        {
          ...stored,
          state: 'STARTED',
          nextStep: stored.steps.length - 1,
          // Without the step's "succeeded" and the completion, as the save before sending left it.
          history: stored.history.slice(0, -2),
          resultObjects: [],
        },
        new Date(),
      );
      firstAgent.close();
      await first.close();

      const second = await startTestControlPlane({ database: { dataDir } });
      try {
        const agent = new TestAgent(second.address, { token: AGENT_TOKEN });
        testAgents.track(agent);
        await agent.connect(helloFor('agent-1', ['ops-gap']));
        const task = await taskWhen(
          apiClient(second.url, USERS.ops.token),
          started.body.id,
          (t) => t.status.completed,
        );
        expect(task.status.failed).toBe(false);
        expect(task.history.map((h: { status: string }) => h.status)).toEqual(
          expect.arrayContaining([
            'Resuming after a cloudctl restart',
            'deleteManifest succeeded',
            'Orchestration completed.',
          ]),
        );
        // The same answer as the first time: the stored result, read again, not a new run.
        expect(finished.resultObjects).toHaveLength(1);
        expect(task.resultObjects).toEqual(finished.resultObjects);
        expect(agent.received.filter((m) => m.message === 'operation')).toHaveLength(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('carries on a task whose operation was sent before the restart, and finishes it once the agent reports', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cloudctl-tasks-'));
    try {
      const first = await startTestControlPlane({ database: { dataDir } });
      const firstAgent = new TestAgent(first.address, { token: AGENT_TOKEN });
      await firstAgent.connect(helloFor('agent-1', ['ops-restart']));
      const started = await apiClient(first.url, USERS.ops.token).post('/ops/scaleManifest', {
        account: 'ops-restart',
        manifestName: 'deployment web',
        location: 'default',
        replicas: 4,
      });
      const received = await firstAgent.next((m) => m.message === 'operation');
      firstAgent.close();
      await first.close();

      const second = await startTestControlPlane({ database: { dataDir } });
      try {
        const client = apiClient(second.url, USERS.ops.token);
        const pending = await client.get(`/task/${started.body.id}`);
        expect(pending.body.status).toMatchObject({ completed: false, failed: false });
        expect(pending.body.history.at(-1)).toEqual({
          phase: 'SCALE_ORCHESTRATOR_MANIFEST',
          status: 'Scaling deployment web in account ops-restart to 4',
        });
        // The agent comes back. Its session ended with the restart, so the operation is sent again
        // under the same id, never a new one (an agent process that still runs it answers with that
        // run: docs/protocol.md); the agent reports the result it produced meanwhile.
        const agent = new TestAgent(second.address, { token: AGENT_TOKEN });
        testAgents.track(agent);
        await agent.connect(helloFor('agent-1', ['ops-restart']));
        const again = await agent.next((m) => m.message === 'operation');
        expect(again.operation).toMatchObject({
          id: received.operation?.id,
          type: 'scale',
          resumeOnly: false,
        });
        await agent.report({
          operationId: received.operation?.id,
          account: 'ops-restart',
          outcome: 'SUCCEEDED',
          result: Buffer.from(JSON.stringify({ replicas: 4 })),
        });
        const task = await taskWhen(client, started.body.id, (t) => t.status.completed);
        expect(task.status.failed).toBe(false);
        expect(task.history.map((h: { status: string }) => h.status)).toContain(
          'Resuming after a cloudctl restart',
        );
        expect(agent.received.filter((m) => m.message === 'operation')).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
