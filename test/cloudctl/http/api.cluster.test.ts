// cloudctl as a user meets it: `cloudctl serve` and `orch-agent run` as real processes from their
// config files, the shared real cluster, and plain HTTP requests with bearer tokens, the way the
// README's curl lines make them. A deploy is followed to completion through its task, and a task
// outlives a cloudctl restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const NS = 'api-e2e';
const ACCOUNT = 'api-e2e';
const TOKENS = {
  agent: 'agent-token-e2e-51d7',
  ops: 'ops-token-e2e-a8c2',
  dev: 'dev-token-e2e-33f0',
  guest: 'guest-token-e2e-7b19',
};

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;
let dev: ApiClient;
let guest: ApiClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-api-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'e2e-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
      { name: 'gina', token: TOKENS.guest, roles: ['guests'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'pod', 'configMap', 'job'],
      read: ['dev'],
      write: ['ops'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
  dev = apiClient(system.url, TOKENS.dev);
  guest = apiClient(system.url, TOKENS.guest);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the HTTP API with a real agent and cluster', () => {
  it('deploys through POST /ops and the task reports the created manifests', async () => {
    const started = await ops.post('/ops', [
      {
        deployManifest: {
          account: ACCOUNT,
          moniker: { app: 'shop' },
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'shop-settings', namespace: NS },
              data: { a: '1' },
            },
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'shop', namespace: NS },
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: 'shop' } },
                template: {
                  metadata: { labels: { app: 'shop' } },
                  spec: { containers: [{ name: 'shop', image: 'registry.example/shop:1' }] },
                },
              },
            },
          ],
        },
      },
    ]);
    expect(started.status).toBe(200);
    const task = await taskDone(ops, started.body.id);
    expect(task.status).toMatchObject({ completed: true, failed: false });
    expect(task.resultObjects[0].manifestNamesByNamespace).toEqual({
      // ConfigMaps are versioned, as Spinnaker deploys them.
      [NS]: ['configMap shop-settings-v000', 'deployment shop'],
    });
    const deployment = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/shop`);
    expect(deployment.status).toBe(200);
    expect(deployment.json).toMatchObject({
      metadata: {
        annotations: {
          'moniker.spinnaker.io/application': 'shop',
          'moniker.spinnaker.io/cluster': 'deployment shop',
        },
      },
    });
  });

  it('scales and deletes through /ops/{name}, and refuses a user without WRITE', async () => {
    const refused = await dev.post('/ops/scaleManifest', {
      account: ACCOUNT,
      manifestName: 'deployment shop',
      location: NS,
      replicas: 2,
    });
    expect(refused.status).toBe(403);

    const scaled = await ops.post('/ops/scaleManifest', {
      account: ACCOUNT,
      manifestName: 'deployment shop',
      location: NS,
      replicas: 2,
    });
    expect((await taskDone(ops, scaled.body.id)).status.failed).toBe(false);
    const deployment = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/shop`);
    expect(deployment.json).toMatchObject({ spec: { replicas: 2 } });

    const deleted = await ops.post('/ops/deleteManifest', {
      account: ACCOUNT,
      manifestName: 'configMap shop-settings-v000',
      location: NS,
    });
    const task = await taskDone(ops, deleted.body.id);
    expect(task.status.failed).toBe(false);
    expect(
      (await cluster.request('GET', `/api/v1/namespaces/${NS}/configmaps/shop-settings-v000`)).status,
    ).toBe(404);
  });

  it('reports a failure of the cluster in the task, with its reason', async () => {
    const started = await ops.post('/ops/scaleManifest', {
      account: ACCOUNT,
      manifestName: 'deployment missing',
      location: NS,
      replicas: 1,
    });
    const task = await taskDone(ops, started.body.id);
    expect(task.status.failed).toBe(true);
    expect(task.status.status).toContain('not found');
  });

  it('finishes a task that was running when cloudctl restarted', async () => {
    const started = await ops.post('/ops/runJob', {
      account: ACCOUNT,
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { generateName: 'migrate-', namespace: NS },
        spec: {
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'migrate', image: 'registry.example/migrate:1' }],
            },
          },
        },
      },
    });
    expect(started.status).toBe(200);
    await system.restartCloudctl('SIGTERM');
    const task = await taskDone(ops, started.body.id, 60_000);
    expect(task.status.failed).toBe(false);
    expect(task.history.map((h: { status: string }) => h.status)).toContain(
      'Resuming after a cloudctl restart',
    );
    expect(task.resultObjects[0]).toMatchObject({ jobOutcome: 'Complete' });
    const jobs = await cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
    // The job ran once: the restart did not send it again.
    expect(jobs.json).toHaveProperty('items', [expect.anything()]);
  }, 90_000);
});

describe('accounts, credentials and the cache, as a user sees them', () => {
  it("lists the agent's account in /credentials for a reader, and not for others", async () => {
    const listed = await dev.get('/credentials');
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(
      expect.objectContaining({
        name: ACCOUNT,
        source: 'static-agent-config',
        permissions: { READ: ['dev'], WRITE: ['ops'] },
      }),
    );
    const account = await dev.get(`/agents/orchestrator/accounts/${ACCOUNT}`);
    expect(account).toMatchObject({
      status: 200,
      body: { name: ACCOUNT, status: 'ACTIVE', agents: [{ agentId: 'e2e-agent', caching: true }] },
    });
    expect((await dev.get(`/agents/orchestrator/accounts/${ACCOUNT}/namespaces`)).body).toEqual([NS]);
    expect((await guest.get('/credentials')).body).not.toContainEqual(
      expect.objectContaining({ name: ACCOUNT }),
    );
    expect((await guest.get(`/credentials/${ACCOUNT}`)).status).toBe(403);
  });

  it('keeps the history of an account defined in cloudctl, deletes included', async () => {
    const definition = {
      name: 'staging',
      type: 'orchestrator',
      context: 'staging',
      permissions: { READ: ['ops'], WRITE: ['ops'] },
    };
    expect((await ops.post('/credentials', definition)).status).toBe(200);
    expect((await ops.put('/credentials', { ...definition, namespaces: ['web'] })).status).toBe(200);
    expect((await ops.delete('/credentials/staging')).status).toBe(204);
    const history = await ops.get('/credentials/staging/history');
    expect(history.status).toBe(200);
    expect(history.body.map((r: { version: number; deleted: boolean }) => [r.version, r.deleted])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(history.body[1].account).toMatchObject({ name: 'staging', namespaces: ['web'] });
  });

  it('re-reads one object on demand and shows the account in the cache introspection', async () => {
    const refreshed = await ops.post('/cache/orchestrator/manifest', {
      account: ACCOUNT,
      location: NS,
      name: 'deployment shop',
    });
    expect(refreshed.status).toBe(200);
    const introspection = await dev.get('/cache/introspection');
    const entry = introspection.body.find((e: { account: string }) => e.account === ACCOUNT);
    expect(entry).toMatchObject({ agentId: 'e2e-agent', connected: true });
    expect(entry.kinds).toContainEqual({ kind: 'deployment', group: 'apps', count: 1 });
  });
});
