// cloudctl in three replicas on one PostgreSQL, with an agent reaching them through one front (as a
// Kubernetes Service would): work that arrives at a replica without the agent's session is sent by
// the replica that holds it, and SIGKILLing that replica in the middle of an operation moves the agent
// to another one while the operation completes exactly once and nothing stored is lost; a task whose
// replica dies is carried on by another once its lease expires; a deployment waiting for a webhook's
// callback when its replica (the one holding the agent's session too) dies goes on on another, and
// the callback, sent through the front, still counts; and SIGKILLing the replica that holds the
// session in the middle of a burst of ConfigMap changes loses nothing of what the agent streamed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudctlDatabase, hashToken, openCloudctlDatabase } from '../../src/cloudctl/index.ts';
import { WebhookReceiver } from '../cloudctl/deployments/webhook-receiver.ts';
import { type ApiClient, apiClient } from '../cloudctl/http-client.ts';
import { freePort } from '../cluster/free-port.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { kwokNode } from '../cluster/kwok.ts';
import { burstKilledHalfway } from '../crash/crash-system.ts';
import { ConfigMapChurn } from '../support/config-map-churn.ts';
import { awaitConvergence, clusterSource, databaseSource } from '../support/convergence.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';
import { type RunningProcess, startCloudctl, startProcess, waitReady } from '../support/processes.ts';
import { SseStream } from '../support/sse-client.ts';
import { taskDone } from '../support/task-wait.ts';
import { startTcpService, type TcpService } from '../support/tcp-service.ts';

const NS = 'replicas-e2e';
const ACCOUNT = 'replicas-e2e';
const AGENT_ID = 'replicas-agent';
const TOKENS = { agent: 'agent-token-replicas-4e1a', ops: 'ops-token-replicas-90b3' };
/** A label no node carries until the test adds one: the Job's pod waits, so the operation runs on. */
const HOLD_LABEL = 'orch-agent-test/replicas-hold';

interface Replica {
  name: string;
  http: number;
  grpc: number;
  process: RunningProcess;
  api: ApiClient;
}

let dir: string;
let postgres: PostgresServer;
let db: Kysely<CloudctlDatabase>;
let cluster: ClusterClient;
let replicas: Replica[];
let front: TcpService;
/** The HTTP front: where webhook jobs reach cloudctl (`http.externalUrl`). */
let httpFront: TcpService;
let receiver: WebhookReceiver;
let agent: RunningProcess;
const nodes: string[] = [];

async function serveReplica(
  name: string,
  databaseUrl: string,
  http: number,
  grpcPort?: number,
): Promise<Replica> {
  // A replica served again takes its old gRPC port: the front lists the ports it started with.
  const grpc = grpcPort ?? (await freePort());
  const config = [
    `grpc:\n  host: 127.0.0.1\n  port: ${grpc}`,
    `http:\n  host: 127.0.0.1\n  port: ${http}\n  externalUrl: http://${httpFront.address}`,
    `database:\n  url: ${databaseUrl}`,
    `agents:\n  - id: ${AGENT_ID}\n    tokenHash: ${hashToken(TOKENS.agent)}`,
    `users:\n  - name: olga\n    tokenHash: ${hashToken(TOKENS.ops)}\n    roles: [ops]`,
    '',
  ].join('\n');
  const process = await startCloudctl(dir, `${name}.yaml`, config, http);
  return { name, http, grpc, process, api: apiClient(`http://127.0.0.1:${http}`, TOKENS.ops) };
}

async function startAgent(grpcAddress: string): Promise<RunningProcess> {
  const healthPort = await freePort();
  const file = join(dir, 'agent.yaml');
  await writeFile(
    file,
    [
      `cloudctl:\n  grpc: ${grpcAddress}\n  insecure: true\n  auth:\n    token: encrypted:env!n:TEST_AGENT_TOKEN`,
      '  responseRetries:\n    backOffMs: 300',
      // Redials within 2 s of cloudctl's database coming back (grpc's default grows to 120 s).
      '  backoff:\n    maxDelay: 2000000000',
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      'orchestrator:\n  accounts:',
      `    - name: ${ACCOUNT}`,
      `      orchConfigFile: ${sharedCluster().kubeconfigPath}`,
      `      namespaces: [${NS}]`,
      '      kinds: [job, configMap]',
      '      permissions:\n        READ: [ops]\n        WRITE: [ops]',
      'dynamicAccounts:\n  enabled: true',
      'logging:\n  format: json',
      '',
    ].join('\n'),
  );
  const started = startProcess('orch-agent', ['run', '--config', file], {
    TEST_AGENT_TOKEN: TOKENS.agent,
    ORCH_AGENT_ID: AGENT_ID,
  });
  await waitReady(started, `http://127.0.0.1:${healthPort}/ready`);
  return started;
}

/** A deployment whose beforeDeployment gate is a webhook job (the test's receiver). */
function gatedDeployment(): string {
  return `application: gated
targets:
  replicas:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: rolling
    constraints:
      beforeDeployment:
        - runWebhook: {name: gate}
strategies:
  rolling:
    canary:
      steps:
        - setWeight: {weight: 50}
webhooks:
  - name: gate
    method: POST
    uriTemplate: ${receiver.url}/gate
    networkMode: direct
    bodyTemplate:
      inline: '{"callbackUri": "{{vendor.callbackUri}}"}'
manifests:
  - inline: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: gated}
      spec:
        replicas: 1
        selector: {matchLabels: {app: gated}}
        template:
          metadata: {labels: {app: gated}}
          spec: {containers: [{name: c, image: registry.example/gated:1}]}
`;
}

/** The replica whose row says it holds the agent's session now. */
async function holderOfAgent(): Promise<string | undefined> {
  const row = await db
    .selectFrom('replica_sessions')
    .select('replica_id')
    .where('agent_id', '=', AGENT_ID)
    .orderBy('connected_at', 'desc')
    .executeTakeFirst();
  return row?.replica_id;
}

function job(prefix: string, nodeSelector?: Record<string, string>) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { generateName: `${prefix}-`, namespace: NS },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          ...(nodeSelector === undefined ? {} : { nodeSelector }),
          containers: [{ name: 'work', image: 'registry.example/work:1' }],
        },
      },
    },
  };
}

async function jobsNamed(prefix: string): Promise<string[]> {
  const listed = await cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
  const items = (listed.json as { items: Array<{ metadata: { name: string } }> }).items;
  return items.map((item) => item.metadata.name).filter((name) => name.startsWith(`${prefix}-`));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replicas-e2e-'));
  postgres = await startPostgres();
  cluster = sharedClusterClient();
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  const httpPorts = [await freePort(), await freePort(), await freePort()];
  httpFront = await startTcpService(httpPorts);
  receiver = await WebhookReceiver.start();
  // One after the other: the first migrates the schema, the others find it done.
  replicas = [];
  for (const [i, name] of ['r0', 'r1', 'r2'].entries())
    replicas.push(await serveReplica(name, postgres.url, httpPorts[i] ?? 0));
  db = await openCloudctlDatabase({ kind: 'postgres', url: postgres.url });
  front = await startTcpService(replicas.map((r) => r.grpc));
  agent = await startAgent(front.address);
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  for (const replica of replicas ?? []) await replica.process.stop();
  await front?.close();
  await httpFront?.close();
  await receiver?.close();
  await db?.destroy();
  await postgres?.stop();
  for (const node of nodes) await cluster?.request('DELETE', `/api/v1/nodes/${node}`);
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A label value no node has yet, and the node that brings it: the held Job's pod runs once it exists. */
async function releaseHeld(hold: string): Promise<void> {
  const node = `replicas-${hold}`;
  nodes.push(node);
  const withLabel = kwokNode(node) as { metadata: { labels: Record<string, string> } };
  withLabel.metadata.labels[HOLD_LABEL] = hold;
  expect((await cluster.request('POST', '/api/v1/nodes', { body: withLabel })).status).toBe(201);
}

describe('cloudctl in three replicas on one PostgreSQL', () => {
  it("sends an operation that arrived at another replica through the one holding the agent's session", async () => {
    const [, , r2] = replicas as [Replica, Replica, Replica];
    // The front sends every new connection to the first replica that is up.
    await expect.poll(holderOfAgent, { timeout: 10_000 }).toMatch(/.+/);
    const holder = await holderOfAgent();

    const started = await r2.api.post('/ops/runJob', { account: ACCOUNT, manifest: job('routed') });
    expect(started.status).toBe(200);
    const task = await taskDone(r2.api, started.body.id, 60_000);
    expect(task.status.failed).toBe(false);
    expect(task.resultObjects[0]).toMatchObject({ jobOutcome: 'Complete' });
    expect(await jobsNamed('routed')).toHaveLength(1);
    // Sent by r0, which still holds the session: nothing moved.
    expect(await holderOfAgent()).toBe(holder);
  }, 90_000);

  it("streams to a watch on another replica what the replica holding the agent's session ingested", async () => {
    const [, , r2] = replicas as [Replica, Replica, Replica];
    const holder = await holderOfAgent();
    const stream = await SseStream.open(`http://127.0.0.1:${r2.http}/watch?account=${ACCOUNT}`, {
      authorization: `Bearer ${TOKENS.ops}`,
    });
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor((e) => e.event === 'position');
      const written = Date.now();
      await new ConfigMapChurn(cluster, NS, 'across').create('across-replicas');
      const event = await stream.waitFor((e) => e.event === 'object' && e.data.name === 'across-replicas');
      expect(event.data).toMatchObject({ type: 'changed', account: ACCOUNT, kind: 'ConfigMap' });
      // The front sends the agent to r0 (first test); r2 holds no session, so what it streamed came
      // through the shared database, and the session did not move meanwhile.
      expect(await holderOfAgent()).toBe(holder);
      console.info(
        `watch on a replica without the session: the change arrived ${Date.now() - written} ms after the write`,
      );
    } finally {
      stream.close();
    }
  });

  it('places a dynamic account registered and activated through a replica the agent is not connected to', async () => {
    const [, r1, r2] = replicas as [Replica, Replica, Replica];
    const defined = await r2.api.post('/credentials', {
      name: 'replicas-dynamic',
      type: 'orchestrator',
      orchConfigFile: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['configMap'],
      permissions: { READ: ['ops'], WRITE: ['ops'] },
    });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    expect((await r2.api.post('/vendor/accounts', [{ name: 'replicas-dynamic' }])).status).toBe(200);
    // Rule 3 holds through the agent r0 serves; the placement is r0's, told by r2.
    const activated = await r2.api.patch('/vendor/accounts', [{ name: 'replicas-dynamic', state: 'ACTIVE' }]);
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    await expect
      .poll(async () => (await r1.api.get('/vendor/accounts/replicas-dynamic')).body, { timeout: 30_000 })
      .toMatchObject({ state: 'ACTIVE', agents: [{ agentId: AGENT_ID, caching: true }] });
  }, 90_000);

  it('completes an operation exactly once when the replica holding the session is SIGKILLed during it', async () => {
    const [r0, r1, r2] = replicas as [Replica, Replica, Replica];
    const before = await holderOfAgent();
    const hold = `hold-${Date.now().toString(36)}`;
    const started = await r2.api.post('/ops/runJob', {
      account: ACCOUNT,
      manifest: job('held', { [HOLD_LABEL]: hold }),
    });
    expect(started.status).toBe(200);
    // The agent has created the Job, and its pod cannot run until a node with the label exists: the
    // operation is under way on the agent when its replica dies.
    await expect.poll(() => jobsNamed('held'), { timeout: 30_000 }).toHaveLength(1);
    // And a deployment, run by r0 as well, waits for its webhook job's callback.
    const submitted = await r0.api.post('/deployments', { file: gatedDeployment(), fileName: 'gated.yaml' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const hook = await receiver.next(0);
    expect(hook.body.callbackUri).toMatch(new RegExp(`^http://${httpFront.address}/deployments/callbacks/`));
    await expect
      .poll(
        async () => (await r1.api.get(`/deployments/${submitted.body.id}`)).body.targets[0].steps[0].message,
        {
          timeout: 30_000,
        },
      )
      .toContain('waiting for the callback');
    const killedAt = Date.now();
    await r0.process.stop('SIGKILL');
    await expect.poll(holderOfAgent, { timeout: 30_000 }).not.toBe(before);

    await releaseHeld(hold);

    const task = await taskDone(r2.api, started.body.id, 90_000);
    const doneMs = Date.now() - killedAt;
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    expect(task.resultObjects[0]).toMatchObject({ jobOutcome: 'Complete' });
    // Executed once: one Job, though its session and the replica it came through are gone.
    expect(await jobsNamed('held')).toHaveLength(1);
    console.info(`replica SIGKILL during an operation: the task completed ${doneMs} ms after the kill`);

    // Nothing stored is lost: the surviving replicas' store holds exactly what the cluster holds.
    await awaitConvergence(
      {
        cluster: clusterSource(cluster, [
          { kind: 'ConfigMap', path: `/api/v1/namespaces/${NS}/configmaps` },
          { kind: 'Job', path: `/apis/batch/v1/namespaces/${NS}/jobs` },
        ]),
        stored: databaseSource(db, ACCOUNT, [NS]),
      },
      { limitMs: 30_000 },
    );
    expect((await r1.api.get(`/task/${started.body.id}`)).status).toBe(200);

    // The job calls back through the front (r0 is gone): another replica takes the deployment over
    // once r0's lease expires, finds the verdict and deploys through the agent's new session.
    expect(
      await WebhookReceiver.callBack(hook, TOKENS.ops, { success: true, mdMessage: 'gate open' }),
    ).toEqual({
      status: 200,
      body: { accepted: true, repeated: false },
    });
    await expect
      .poll(async () => (await r2.api.get(`/deployments/${submitted.body.id}`)).body.status, {
        timeout: 60_000,
      })
      .toBe('SUCCEEDED');
    const done = (await r1.api.get(`/deployments/${submitted.body.id}`)).body;
    expect(done.targets[0].steps[0]).toMatchObject({ status: 'SUCCEEDED', mdMessage: 'gate open' });
    expect(done.log.map((l: { message: string }) => l.message)).toContain('carried on by a cloudctl start');
    // One request to the job: the replica that took over waited for the callback, it did not send again.
    expect(receiver.calls).toHaveLength(1);
    const rs = await cluster.request(
      'GET',
      `/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=deploy.vendor.io%2Fworkload%3Dgated`,
    );
    expect(rs.json).toMatchObject({ items: [{ spec: { replicas: 1 } }] });
    console.info(
      `replica SIGKILL during a webhook wait: the deployment succeeded ${Date.now() - killedAt} ms after the kill`,
    );
  }, 180_000);

  it('carries on a task on another replica once the lease of the one running it has expired', async () => {
    const [, r1, r2] = replicas as [Replica, Replica, Replica];
    const hold = `task-${Date.now().toString(36)}`;
    const started = await r2.api.post('/ops/runJob', {
      account: ACCOUNT,
      manifest: job('orphan', { [HOLD_LABEL]: hold }),
    });
    expect(started.status).toBe(200);
    await expect.poll(() => jobsNamed('orphan'), { timeout: 30_000 }).toHaveLength(1);
    // r2 runs the task and waits for its operation; it dies, and the Job's pod can run only now.
    const killedAt = Date.now();
    await r2.process.stop('SIGKILL');
    await releaseHeld(hold);

    const task = await taskDone(r1.api, started.body.id, 90_000);
    const doneMs = Date.now() - killedAt;
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    expect(task.resultObjects[0]).toMatchObject({ jobOutcome: 'Complete' });
    expect(task.history.map((h: { status: string }) => h.status)).toContain(
      'Resuming after a cloudctl restart',
    );
    // Carried on, not started again: the operation sent before the kill was awaited, not re-sent.
    expect(await jobsNamed('orphan')).toHaveLength(1);
    console.info(
      `replica SIGKILL while running a task: completed on another replica ${doneMs} ms after the kill`,
    );
  }, 180_000);

  it('stays up without PostgreSQL, answers not ready, and serves again once it is back', async () => {
    const [, r1] = replicas as [Replica, Replica, Replica];
    await postgres.kill();
    await expect.poll(async () => (await r1.api.get('/ready')).status, { timeout: 30_000 }).toBe(503);
    expect((await r1.api.get('/health')).status).toBe(200);
    await postgres.restart();
    await expect.poll(async () => (await r1.api.get('/ready')).status, { timeout: 30_000 }).toBe(200);
    // A session whose heartbeat or changes (the Jobs of the tests before) could not be stored during
    // the outage ended; the agent dials again on its backoff (at most 2 s apart here), so the test
    // waits for its session as a user would. CI failed here when grpc's default had grown the wait.
    await expect
      .poll(async () => (await r1.api.get(`/agents/orchestrator/accounts/${ACCOUNT}`)).body.agents, {
        timeout: 30_000,
      })
      .toEqual([{ agentId: AGENT_ID, caching: true }]);
    // Its listening connection is back too: an operation still reaches the agent and completes.
    const started = await r1.api.post('/ops/runJob', { account: ACCOUNT, manifest: job('after-db') });
    expect(started.status).toBe(200);
    const task = await taskDone(r1.api, started.body.id, 60_000);
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    expect(r1.process.child.exitCode).toBeNull();
  }, 120_000);

  it('loses nothing when the replica holding the session is SIGKILLed in the middle of a change burst', async () => {
    const [r0, r1] = replicas as [Replica, Replica, Replica];
    // r0 died earlier: served again on its ports, it is where the agent can go when r1 dies.
    replicas[0] = await serveReplica(r0.name, postgres.url, r0.http, r0.grpc);
    // r1 is the only replica that was up: it holds the session.
    const before = await holderOfAgent();
    const churn = new ConfigMapChurn(cluster, NS, 'replicasload');
    let killedAt = 0;
    await burstKilledHalfway(churn, async () => {
      killedAt = Date.now();
      await r1.process.stop('SIGKILL');
    });
    // The agent's uplink is redelivered to the surviving replica; the shared store must then equal
    // the cluster: nothing lost, no ghost, nothing stale.
    await expect.poll(holderOfAgent, { timeout: 30_000 }).not.toBe(before);
    const convergedMs = await awaitConvergence(
      {
        cluster: clusterSource(cluster, [
          { kind: 'ConfigMap', path: `/api/v1/namespaces/${NS}/configmaps` },
          { kind: 'Job', path: `/apis/batch/v1/namespaces/${NS}/jobs` },
        ]),
        stored: databaseSource(db, ACCOUNT, [NS]),
      },
      { limitMs: 60_000 },
    );
    expect(churn.live.length).toBeGreaterThan(200);
    console.info(
      `replica SIGKILL during a burst: ${churn.live.length} ConfigMaps stored exactly ${Date.now() - killedAt} ms after the kill (converged in ${convergedMs} ms of polling)`,
    );
  }, 180_000);
});
