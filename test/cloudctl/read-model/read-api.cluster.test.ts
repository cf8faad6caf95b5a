// The read model as users meet it: `cloudctl serve` and `orch-agent run` as processes, workloads,
// Services, an Ingress and a NetworkPolicy created in the shared cluster, and the read endpoints
// checked against what the API server holds: server groups and their pods, capacity after a scale,
// load balancers and `disabled`, and objects gone after a delete. Then who may read what.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const NS = 'read-model-e2e';
const ACCOUNT = 'read-e2e';
const TOKENS = {
  agent: 'agent-token-read-e2e-0c1d',
  dev: 'dev-token-read-e2e-91aa',
  guest: 'guest-token-read-e2e-5e2f',
};
const SHOP = { 'moniker.spinnaker.io/application': 'shop' };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let dev: ApiClient;
let guest: ApiClient;
let anonymous: ApiClient;

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: app, image: `registry.example/${app}:1` }] },
});

async function create(path: string, body: Record<string, unknown>) {
  const created = await cluster.request('POST', path, { body });
  if (created.status !== 201)
    throw new Error(`create ${path}: ${created.status} ${JSON.stringify(created.json)}`);
}

interface Listed {
  items: Array<{
    metadata: {
      name: string;
      annotations?: Record<string, string>;
      ownerReferences?: Array<{ kind: string; name: string }>;
    };
    spec?: { replicas?: number };
    status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
  }>;
}

async function list(path: string): Promise<Listed['items']> {
  const answer = await cluster.request('GET', path);
  return (answer.json as Listed).items;
}

/** What the API server holds: pod names per owner "<Kind> <name>", and a Deployment's ReplicaSets. */
async function podsByOwner(): Promise<Map<string, string[]>> {
  const byOwner = new Map<string, string[]>();
  for (const pod of await list(`/api/v1/namespaces/${NS}/pods`)) {
    const owner = pod.metadata.ownerReferences?.[0];
    if (owner === undefined) continue;
    const key = `${owner.kind} ${owner.name}`;
    byOwner.set(key, [...(byOwner.get(key) ?? []), `pod ${pod.metadata.name}`].sort());
  }
  return byOwner;
}

async function replicaSetsOf(deployment: string): Promise<Listed['items']> {
  return (await list(`/apis/apps/v1/namespaces/${NS}/replicasets`)).filter((rs) =>
    rs.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === deployment),
  );
}

const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 40_000, interval: 250 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-read-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'read-e2e-agent', token: TOKENS.agent },
    users: [
      { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
      { name: 'gina', token: TOKENS.guest, roles: ['guests'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: [
        'deployment',
        'replicaSet',
        'statefulSet',
        'daemonSet',
        'pod',
        'service',
        'ingress',
        'networkPolicy',
        'configMap',
        'job',
      ],
      read: ['dev'],
      write: ['dev'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await create(`/apis/apps/v1/namespaces/${NS}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', annotations: { ...SHOP, 'moniker.spinnaker.io/cluster': 'deployment web' } },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') },
  });
  await create(`/apis/apps/v1/namespaces/${NS}/statefulsets`, {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', labels: { 'app.kubernetes.io/name': 'shop' } },
    spec: {
      replicas: 1,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: podTemplate('db'),
    },
  });
  await create(`/apis/apps/v1/namespaces/${NS}/daemonsets`, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'logs', annotations: { 'deploy.vendor.io/application': 'shop' } },
    spec: { selector: { matchLabels: { app: 'logs' } }, template: podTemplate('logs') },
  });
  await create(`/api/v1/namespaces/${NS}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', annotations: SHOP },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
  });
  await create(`/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', annotations: SHOP },
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
  });
  await create(`/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'deny-all', annotations: SHOP },
    spec: { podSelector: {}, policyTypes: ['Ingress'] },
  });
  await create(`/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'web-only', annotations: SHOP },
    spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
  });
  await create(`/api/v1/namespaces/${NS}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', annotations: SHOP },
    data: { a: '1' },
  });
  await create(`/api/v1/namespaces/${NS}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'loose' },
    data: { a: '1' },
  });
  await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', annotations: SHOP },
    spec: {
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'registry.example/m:1' }] },
      },
    },
  });
  await system.startAgent();
  dev = apiClient(system.url, TOKENS.dev);
  guest = apiClient(system.url, TOKENS.guest);
  anonymous = apiClient(system.url);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

const enc = encodeURIComponent;

describe('the read model over a real agent and cluster', () => {
  it('shows every server group with the pods the API server says it owns, and capacity from replicas', async () => {
    await eventually(async () => {
      const [rs] = await replicaSetsOf('web');
      expect(rs).toBeDefined();
      const pods = await podsByOwner();
      const answer = await dev.get('/applications/shop/serverGroups?expand=true');
      expect(answer.status).toBe(200);
      const byName = new Map(answer.body.map((sg: { name: string }) => [sg.name, sg]));
      expect([...byName.keys()].sort()).toEqual(
        [`replicaSet ${rs?.metadata.name}`, 'statefulSet db', 'daemonSet logs'].sort(),
      );
      const web = byName.get(`replicaSet ${rs?.metadata.name}`);
      const webPods = pods.get(`ReplicaSet ${rs?.metadata.name}`) ?? [];
      expect(webPods).toHaveLength(2);
      expect(web).toMatchObject({
        account: ACCOUNT,
        region: NS,
        cloudProvider: 'orchestrator',
        cluster: 'deployment web',
        moniker: { app: 'shop', cluster: 'deployment web' },
        capacity: { desired: 2 },
        instanceCounts: { total: 2, up: 2 },
        disabled: false,
        loadBalancers: ['ingress web', 'service web'],
        serverGroupManagers: [{ account: ACCOUNT, location: NS, name: 'web' }],
      });
      expect((web as { instances: Array<{ name: string }> }).instances.map((i) => i.name)).toEqual(webPods);
      expect(byName.get('statefulSet db')).toMatchObject({
        cluster: 'statefulSet db',
        capacity: { desired: 1 },
        instanceCounts: { total: (pods.get('StatefulSet db') ?? []).length },
        disabled: true,
      });
      expect(byName.get('daemonSet logs')).toMatchObject({
        instanceCounts: { total: (pods.get('DaemonSet logs') ?? []).length },
        disabled: true,
      });
    });
  }, 60_000);

  it('lists the application with its clusters, and the clusters with their load balancers', async () => {
    const apps = await dev.get('/applications');
    expect(apps.body).toContainEqual({
      name: 'shop',
      attributes: { name: 'shop', cloudProviders: 'orchestrator' },
      clusterNames: { [ACCOUNT]: ['daemonSet logs', 'deployment web', 'statefulSet db'] },
    });
    expect((await dev.get('/applications?expand=false')).body).toContainEqual(
      expect.objectContaining({ name: 'shop', clusterNames: {} }),
    );
    expect((await dev.get('/applications/shop/clusters')).body).toEqual({
      [ACCOUNT]: ['daemonSet logs', 'deployment web', 'statefulSet db'],
    });
    const cluster = await dev.get(
      `/applications/shop/clusters/${ACCOUNT}/${enc('deployment web')}/orchestrator`,
    );
    expect(cluster.status).toBe(200);
    expect(cluster.body.loadBalancers.map((lb: { name: string }) => lb.name)).toEqual([
      'ingress web',
      'service web',
    ]);
    expect(cluster.body.serverGroups).toHaveLength(1);
    const views = await dev.get(`/applications/shop/clusters/${ACCOUNT}`);
    expect(views.body.map((v: { name: string }) => v.name)).toEqual([
      'daemonSet logs',
      'deployment web',
      'statefulSet db',
    ]);
    const managers = await dev.get('/applications/shop/serverGroupManagers');
    const [rs] = await replicaSetsOf('web');
    expect(managers.body).toEqual([
      expect.objectContaining({
        name: 'deployment web',
        serverGroups: [expect.objectContaining({ name: `replicaSet ${rs?.metadata.name}` })],
      }),
    ]);
    const raw = await dev.get('/applications/shop/rawResources');
    const rawNames = raw.body.map((r: { name: string }) => r.name);
    expect(rawNames).toContain('configMap settings');
    expect(rawNames).not.toContain('configMap loose');
  });

  it("answers an instance's console whose logs the cluster cannot read with the cluster's reason", async () => {
    const name = (await list(`/api/v1/namespaces/${NS}/pods`)).find((p) => p.metadata.name.startsWith('web-'))
      ?.metadata.name;
    // These pods run on kwok's nodes, which have no kubelet (the fake kubelet's node is tainted, and
    // test/cloudctl/http/pod-logs.cluster.test.ts reads real logs there): the agent's read fails,
    // and the container's output says what the cluster said, as clouddriver answers (200), not a
    // 502 that hides every container.
    const direct = await cluster.request('GET', `/api/v1/namespaces/${NS}/pods/${name}/log?container=web`);
    expect(direct.status).toBe(500);
    const console = await dev.get(`/instances/${ACCOUNT}/${NS}/${enc(`pod ${name}`)}/console`);
    expect(console.status).toBe(200);
    expect(console.body.output).toHaveLength(1);
    expect(console.body.output[0].name).toBe('web');
    expect(console.body.output[0].output).toMatch(
      new RegExp(
        `^Failed to retrieve the logs: the agent could not read the logs of web: FAILED: .*GET /api/v1/namespaces/${NS}/pods/${name}/log`,
      ),
    );
    expect((await guest.get(`/instances/${ACCOUNT}/${NS}/${enc(`pod ${name}`)}/console`)).status).toBe(403);
  });

  it("finds a cluster's server group by dynamic target, and its image", async () => {
    const [rs] = await replicaSetsOf('web');
    const base = `/applications/shop/clusters/${ACCOUNT}/${enc('deployment web')}/orchestrator/${NS}/serverGroups/target`;
    const newest = await dev.get(`${base}/current_asg_dynamic`);
    expect(newest.status).toBe(200);
    expect(newest.body.name).toBe(`replicaSet ${rs?.metadata.name}`);
    expect((await dev.get(`${base}/ancestor_asg_dynamic`)).status).toBe(404);
    expect((await dev.get(`${base}/newest/image`)).body).toEqual({
      serverGroupName: `replicaSet ${rs?.metadata.name}`,
      imageId: 'registry.example/web:1',
      imageName: 'registry.example/web:1',
      images: ['registry.example/web:1'],
    });
  });

  it('answers instances, load balancers, security groups and search from the same objects', async () => {
    const pods = await list(`/api/v1/namespaces/${NS}/pods`);
    const pod = pods.find((p) => p.metadata.name.startsWith('web-'));
    const ready = pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const instance = await dev.get(`/instances/${ACCOUNT}/${NS}/${enc(`pod ${pod?.metadata.name}`)}`);
    expect(instance.body).toMatchObject({
      name: `pod ${pod?.metadata.name}`,
      zone: NS,
      phase: pod?.status?.phase,
      healthState: pod?.status?.phase === 'Running' && ready ? 'Up' : expect.any(String),
    });
    const lbs = await dev.get('/applications/shop/loadBalancers');
    const service = lbs.body.find((lb: { name: string }) => lb.name === 'service web');
    expect(service.serverGroups.map((sg: { instances: unknown[] }) => sg.instances.length)).toEqual([2]);
    expect((await dev.get(`/securityGroups/${ACCOUNT}/orchestrator`)).body).toEqual({
      [NS]: [
        { id: 'networkPolicy deny-all', name: 'networkPolicy deny-all', moniker: expect.any(Object) },
        { id: 'networkPolicy web-only', name: 'networkPolicy web-only', moniker: expect.any(Object) },
      ],
    });
    // A NetworkPolicy applies to the pods its podSelector selects; an empty one to every pod.
    const groups = await dev.get('/applications/shop/serverGroups');
    const policiesOf = (prefix: string) =>
      groups.body.find((sg: { name: string }) => sg.name.startsWith(prefix))?.securityGroups;
    expect(policiesOf('replicaSet web-')).toEqual(['networkPolicy deny-all', 'networkPolicy web-only']);
    expect(policiesOf('statefulSet db')).toEqual(['networkPolicy deny-all']);
    const found = await dev.get('/search?q=web&type=serverGroups&type=loadBalancers');
    expect(found.body[0].results.map((r: { name: string }) => r.name)).toEqual([
      'ingress web',
      `replicaSet ${(await replicaSetsOf('web'))[0]?.metadata.name}`,
      'service web',
    ]);
  });

  it("reports a Job's state as the API server's status has it, and cancels it", async () => {
    await eventually(async () => {
      const job = await cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs/migrate`);
      const status = (
        job.json as { status?: { conditions?: Array<{ type: string; status: string }>; active?: number } }
      ).status;
      const done = status?.conditions?.find(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      );
      const expected =
        done?.type === 'Complete' ? 'Succeeded' : done?.type === 'Failed' ? 'Failed' : undefined;
      expect(expected).toBeDefined();
      const answer = await dev.get(`/applications/shop/jobs/${ACCOUNT}/${NS}/${enc('job migrate')}`);
      expect(answer.body).toMatchObject({ id: 'job migrate', location: NS, jobState: expected });
    });
    expect((await dev.get(`/applications/shop/jobs/${ACCOUNT}/${NS}/nope`)).status).toBe(404);

    const path = `/applications/shop/jobs/${ACCOUNT}/${NS}/${enc('job migrate')}`;
    const [pod] = (await list(`/api/v1/namespaces/${NS}/pods`)).filter((p) =>
      p.metadata.ownerReferences?.some((o) => o.kind === 'Job' && o.name === 'migrate'),
    );
    // No kubelet behind kwok's nodes: the log read fails in the cluster, and the answer says so.
    // (pod-logs.cluster.test.ts reads the properties of a Job on the fake kubelet's node.)
    const properties = await dev.get(`${path}/m`);
    expect(properties.status).toBe(502);
    expect(properties.body.message).toContain(`/pods/${pod?.metadata.name}/log`);
    expect((await dev.get(`${path}/no-such-container`)).status).toBe(404);
    expect((await guest.delete(path)).status).toBe(403);
    expect((await dev.delete(path)).status).toBe(204);
    await eventually(async () => {
      expect((await cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs/migrate`)).status).toBe(404);
      expect((await dev.get(path)).status).toBe(404);
    });
  }, 60_000);

  it('follows a scale, a Service deleted and a StatefulSet deleted', async () => {
    const scaled = await cluster.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web/scale`, {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    expect(scaled.status).toBe(200);
    await cluster.request('DELETE', `/api/v1/namespaces/${NS}/services/web`);
    await cluster.request('DELETE', `/apis/apps/v1/namespaces/${NS}/statefulsets/db`);
    await eventually(async () => {
      const [rs] = await replicaSetsOf('web');
      const owned = (await podsByOwner()).get(`ReplicaSet ${rs?.metadata.name}`) ?? [];
      expect(owned).toHaveLength(3);
      const answer = await dev.get('/applications/shop/serverGroups?expand=true');
      const names = answer.body.map((sg: { name: string }) => sg.name);
      expect(names).not.toContain('statefulSet db');
      const web = answer.body.find((sg: { name: string }) => sg.name === `replicaSet ${rs?.metadata.name}`);
      expect(web).toMatchObject({ capacity: { desired: 3 }, instanceCounts: { total: 3 }, disabled: true });
      expect(web.instances.map((i: { name: string }) => i.name)).toEqual(owned);
    });
    expect((await dev.get('/applications/shop/clusters')).body[ACCOUNT]).not.toContain('statefulSet db');
  }, 60_000);

  it("keeps a rollout's two ReplicaSets as its Deployment's server groups, sequenced by revision, across a cloudctl restart", async () => {
    const api = { ...SHOP, 'moniker.spinnaker.io/cluster': 'deployment api' };
    const deployment = `/apis/apps/v1/namespaces/${NS}/deployments`;
    await create(deployment, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', annotations: api },
      spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: podTemplate('api') },
    });
    await eventually(async () => expect(await replicaSetsOf('api')).toHaveLength(1));
    const rolled = await cluster.request('PATCH', `${deployment}/api`, {
      body: {
        spec: { template: { spec: { containers: [{ name: 'api', image: 'registry.example/api:2' }] } } },
      },
      contentType: 'application/merge-patch+json',
    });
    expect(rolled.status).toBe(200);
    /** What cloudctl answers for the rollout must be what the API server holds. */
    const matchesTheCluster = async () => {
      const sets = await replicaSetsOf('api');
      expect(sets).toHaveLength(2);
      const names = sets.map((rs) => `replicaSet ${rs.metadata.name}`).sort();
      const managers = await dev.get('/applications/shop/serverGroupManagers');
      const manager = managers.body.find((m: { name: string }) => m.name === 'deployment api');
      expect(manager.serverGroups.map((sg: { name: string }) => sg.name).sort()).toEqual(names);
      const groups = await dev.get('/applications/shop/serverGroups');
      const ofApi = groups.body.filter((sg: { cluster: string }) => sg.cluster === 'deployment api');
      expect(ofApi.map((sg: { name: string }) => sg.name).sort()).toEqual(names);
      for (const rs of sets) {
        expect(
          ofApi.find((sg: { name: string }) => sg.name === `replicaSet ${rs.metadata.name}`),
        ).toMatchObject({
          moniker: { sequence: Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision']) },
          capacity: { desired: rs.spec?.replicas },
        });
      }
      expect(ofApi.map((sg: { moniker: { sequence: number } }) => sg.moniker.sequence).sort()).toEqual([
        1, 2,
      ]);
    };
    await eventually(matchesTheCluster);
    await system.restartCloudctl();
    await eventually(matchesTheCluster);
    const deleted = await cluster.request('DELETE', `${deployment}/api`, {
      body: { propagationPolicy: 'Foreground' },
    });
    expect(deleted.status).toBe(200);
    await eventually(async () => {
      expect(await replicaSetsOf('api')).toHaveLength(0);
      const groups = await dev.get('/applications/shop/serverGroups');
      expect(groups.body.filter((sg: { cluster: string }) => sg.cluster === 'deployment api')).toEqual([]);
      const managers = await dev.get('/applications/shop/serverGroupManagers');
      expect(managers.body.map((m: { name: string }) => m.name)).not.toContain('deployment api');
    });
  }, 120_000);

  it('answers 401 without a token, 403 or nothing to who may not read, 404 for what does not exist', async () => {
    expect((await anonymous.get('/applications')).status).toBe(401);
    expect((await guest.get('/applications')).body).not.toContainEqual(
      expect.objectContaining({ name: 'shop' }),
    );
    expect((await guest.get('/applications/shop')).status).toBe(404);
    expect((await guest.get(`/applications/shop/clusters/${ACCOUNT}`)).status).toBe(403);
    expect((await guest.get(`/instances/${ACCOUNT}/${NS}/x`)).status).toBe(403);
    expect((await guest.get(`/securityGroups/${ACCOUNT}/orchestrator`)).status).toBe(403);
    expect((await guest.get('/search?q=web&type=serverGroups')).body[0].totalMatches).toBe(0);
    expect((await dev.get('/applications/nothing-here')).status).toBe(404);
    expect((await dev.get('/applications/shop/clusters/no-account')).status).toBe(404);
    expect((await dev.get(`/applications/shop/clusters/${ACCOUNT}/${enc('deployment nope')}`)).status).toBe(
      404,
    );
    expect((await dev.get(`/instances/${ACCOUNT}/${NS}/${enc('pod nope')}`)).status).toBe(404);
  });
});
