// enableManifest and disableManifest end to end: `cloudctl serve` and `orch-agent run` as real
// processes, the shared real cluster, plain HTTP. A Service and a ReplicaSet annotated with it are
// deployed through POST /ops; enabling puts the Service's selector labels on the pod template and on
// every pod (read back from the cluster) and the read model says enabled; disabling takes them off
// and the read model says `disabled`; enabling again brings them back. The template is deployed
// without the selector's labels, as Spinnaker requires (its deploy adds them when enableTraffic). kwok simulates the pods: they run and have IPs, but whether the Endpoints controller follows
// is kwok's business, so Endpoints are not asserted; the labels the Service selects by are.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const NS = 'traffic-e2e';
const ACCOUNT = 'traffic-e2e';
const TOKENS = {
  agent: 'agent-token-traffic-6c1e',
  ops: 'ops-token-traffic-93ad',
  dev: 'dev-token-traffic-41b7',
};
const SELECTOR = { traffic: 'web-front' };
/** The labels every deploy writes on the pod template (Spinnaker's KubernetesManifestLabeler). */
const DEPLOYED = { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/managed-by': 'spinnaker' };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;
let dev: ApiClient;

const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 40_000, interval: 250 });

interface Labelled {
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { name: string }[] };
}

/** The ReplicaSet's pod template labels and its pods' labels, as the cluster has them. */
async function clusterLabels() {
  const rs = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets/web`);
  const template = (rs.json as { spec: { template: { metadata: { labels: Record<string, string> } } } }).spec
    .template.metadata.labels;
  const pods = await cluster.request('GET', `/api/v1/namespaces/${NS}/pods`);
  const owned = (pods.json as { items: Labelled[] }).items.filter((p) =>
    p.metadata.ownerReferences?.some((o) => o.name === 'web'),
  );
  return { template, pods: owned.map((p) => p.metadata.labels ?? {}) };
}

/** The ReplicaSet's pods by name, in name order. */
async function podNames(): Promise<string[]> {
  const pods = await cluster.request('GET', `/api/v1/namespaces/${NS}/pods`);
  return (pods.json as { items: Labelled[] }).items
    .filter((p) => p.metadata.ownerReferences?.some((o) => o.name === 'web'))
    .map((p) => p.metadata.name)
    .sort();
}

/** Pods the Service's selector picks, asked of the API server with a label selector. */
async function selectedPods(): Promise<string[]> {
  const answer = await cluster.request(
    'GET',
    `/api/v1/namespaces/${NS}/pods?labelSelector=traffic%3Dweb-front`,
  );
  return (answer.json as { items: Labelled[] }).items.map((p) => p.metadata.name);
}

/** enableManifest through /ops/{name}, then the cluster and the read model checked. */
async function enable() {
  const started = await ops.post('/ops/enableManifest', {
    account: ACCOUNT,
    manifestName: 'replicaSet web',
    location: NS,
  });
  expect(started.status).toBe(200);
  expect((await taskDone(ops, started.body.id)).status.failed).toBe(false);
  const labels = await clusterLabels();
  expect(labels.template).toEqual({ app: 'web', ...DEPLOYED, ...SELECTOR });
  expect(labels.pods).toHaveLength(2);
  for (const pod of labels.pods) expect(pod).toMatchObject(SELECTOR);
  expect(await selectedPods()).toHaveLength(2);
  await eventually(async () => {
    expect(await serverGroup()).toMatchObject({ disabled: false });
  });
}

async function serverGroup() {
  const answer = await ops.get('/applications/shop/serverGroups?expand=true');
  expect(answer.status).toBe(200);
  return answer.body.find((sg: { name: string }) => sg.name === 'replicaSet web');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-traffic-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'traffic-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['replicaSet', 'pod', 'service'],
      read: ['ops', 'dev'],
      write: ['ops'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
  dev = apiClient(system.url, TOKENS.dev);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('enableManifest and disableManifest against a real cluster', () => {
  it('deploys a Service and a ReplicaSet that names it, and enables it', async () => {
    const started = await ops.post('/ops', [
      {
        deployManifest: {
          account: ACCOUNT,
          moniker: { app: 'shop' },
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: 'front', namespace: NS },
              spec: { selector: SELECTOR, ports: [{ port: 80, targetPort: 8080 }] },
            },
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              metadata: {
                name: 'web',
                namespace: NS,
                annotations: {
                  'traffic.spinnaker.io/load-balancers': '["service front"]',
                  // One fixed name whether or not deploys version ReplicaSets (`-vNNN`).
                  'strategy.spinnaker.io/versioned': 'false',
                },
              },
              spec: {
                replicas: 2,
                selector: { matchLabels: { app: 'web' } },
                template: {
                  metadata: { labels: { app: 'web' } },
                  spec: { containers: [{ name: 'web', image: 'registry.example/web:1' }] },
                },
              },
            },
          ],
        },
      },
    ]);
    expect(started.status).toBe(200);
    expect((await taskDone(ops, started.body.id)).status.failed).toBe(false);
    // Enable and disable patch the pods the read model knows: wait until it knows both.
    await eventually(async () => {
      expect(await serverGroup()).toMatchObject({ instanceCounts: { total: 2 } });
    });
    await enable();
  }, 60_000);

  it('refuses to disable for a Service that does not exist, naming the field', async () => {
    const payload = {
      account: ACCOUNT,
      manifestName: 'replicaSet web',
      location: NS,
      loadBalancers: ['service missing'],
    };
    // Without WRITE the answer is 403 before any lookup: it does not tell what the account holds.
    expect((await dev.post('/ops/disableManifest', payload)).status).toBe(403);
    const answer = await ops.post('/ops/disableManifest', payload);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('body.loadBalancers');
    expect(JSON.stringify(answer.body)).toContain('service missing not found');
    expect(await selectedPods()).toHaveLength(2);
  });

  it("disables: the Service's selector labels leave the template and every pod", async () => {
    const started = await ops.post('/ops', [
      { disableManifest: { account: ACCOUNT, manifestName: 'replicaSet web', location: NS } },
    ]);
    expect(started.status).toBe(200);
    const task = await taskDone(ops, started.body.id);
    expect(task.status.failed).toBe(false);
    // One step for the template, then one per pod.
    const statuses: string[] = task.history.map((h: { status: string }) => h.status);
    expect(statuses.filter((s) => s.startsWith('Disabling '))).toEqual([
      'Disabling replicaSet web in service front',
      ...(await podNames()).map((pod) => `Disabling pod ${pod} in service front`),
    ]);
    const labels = await clusterLabels();
    expect(labels.template).toEqual({ app: 'web', ...DEPLOYED });
    expect(labels.pods).toHaveLength(2);
    for (const pod of labels.pods) expect(pod).not.toHaveProperty('traffic');
    expect(await selectedPods()).toEqual([]);
    // The ReplicaSet still owns both pods: its own selector (app) was left alone.
    expect(labels.pods.every((pod) => pod.app === 'web')).toBe(true);
    await eventually(async () => {
      expect(await serverGroup()).toMatchObject({ disabled: true, instanceCounts: { total: 2 } });
    });
  }, 60_000);

  it('enables again: template and pods carry the selector labels, the read model says enabled', async () => {
    await enable();
  }, 60_000);
});
