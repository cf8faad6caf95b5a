// Spinnaker's manifest reads against cloudctl and an agent as processes and the shared real cluster:
// what Orca's "wait for manifest to stabilize" and dynamic target lookups call, and the provider
// paths Deck calls. Objects are deployed through POST /ops as a pipeline would.
//
// kwok simulates the pods: it marks them Running and Ready as soon as they are scheduled, without
// running a container. "Stable" below therefore means the controllers' replica counts caught up
// with kwok's simulated pods; it says nothing of images being pulled or probes passing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiAnswer, type ApiClient, apiClient } from '../http-client.ts';

const NS = 'manifests-e2e';
const ACCOUNT = 'manifests-e2e';
const TOKENS = {
  agent: 'agent-token-manifests-4c1e',
  ops: 'ops-token-manifests-9a07',
  dev: 'dev-token-manifests-2b58',
  guest: 'guest-token-manifests-e613',
};

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;
let dev: ApiClient;
let guest: ApiClient;

const manifestPath = (name: string, query = '') =>
  `/manifests/${ACCOUNT}/${NS}/${encodeURIComponent(name)}${query}`;
const dynamicPath = (kind: string, cluster: string, criteria: string) =>
  `/manifests/${ACCOUNT}/${NS}/${kind}/cluster/shop/${encodeURIComponent(cluster)}/dynamic/${criteria}`;

/** Runs one operation through POST /ops and waits for its task to succeed. */
async function run(operation: Record<string, unknown>): Promise<void> {
  const started = await ops.post('/ops', [operation]);
  expect(started.status).toBe(200);
  const task = await taskDone(ops, started.body.id);
  expect(task.status, JSON.stringify(task)).toMatchObject({ completed: true, failed: false });
}

/** Asks until the answer satisfies `done`; the last answer when it never does, for the assertion to show. */
async function until(
  ask: () => Promise<ApiAnswer>,
  done: (answer: ApiAnswer) => boolean,
  timeoutMs = 45_000,
): Promise<ApiAnswer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await ask();
    if (done(answer) || Date.now() > deadline) return answer;
    await sleep(250);
  }
}

/** One version of cluster `replicaSet web-rs`: deployed as `web-rs`, versioned by cloudctl (-v000, -v001). */
const replicaSet = (version: number, replicas: number) => ({
  deployManifest: {
    account: ACCOUNT,
    moniker: { app: 'shop' },
    manifests: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-rs', namespace: NS },
        spec: {
          replicas,
          selector: { matchLabels: { app: 'web-rs', version: String(version) } },
          template: {
            metadata: { labels: { app: 'web-rs', version: String(version) } },
            spec: { containers: [{ name: 'web', image: `registry.example/web:${version}` }] },
          },
        },
      },
    ],
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-manifests-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'manifests-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
      { name: 'gina', token: TOKENS.guest, roles: ['guests'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      // Namespaces and Events are not cached: reads of them go to the cluster through the agent.
      kinds: ['deployment', 'replicaSet', 'pod', 'configMap', 'service'],
      read: ['dev', 'ops'],
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
  await run({
    deployManifest: {
      account: ACCOUNT,
      moniker: { app: 'shop' },
      manifests: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          // Unversioned, so the Deployment mounts it by this name (versioning is tested elsewhere).
          metadata: {
            name: 'web-settings',
            namespace: NS,
            annotations: { 'strategy.spinnaker.io/versioned': 'false' },
          },
          data: { color: 'blue' },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: NS },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: {
                containers: [{ name: 'web', image: 'registry.example/web:1.4' }],
                volumes: [{ name: 'settings', configMap: { name: 'web-settings' } }],
              },
            },
          },
        },
      ],
    },
  });
  await run(replicaSet(0, 1));
  await run(replicaSet(1, 2));
  await run({
    deployManifest: {
      account: ACCOUNT,
      moniker: { app: 'shop' },
      manifests: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'web-rs', namespace: NS },
          spec: { selector: { app: 'web-rs', version: '1' }, ports: [{ port: 80 }] },
        },
      ],
    },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('GET /manifests/{account}/{location}/{name}', () => {
  it('answers a Deployment with its status stable once its (kwok-simulated) pods run, and its events', async () => {
    const answer = await until(
      () => dev.get(manifestPath('deployment web')),
      (a) => a.status === 200 && a.body.status.stable.state === true && a.body.events.length > 0,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      account: ACCOUNT,
      name: 'deployment web',
      location: NS,
      manifest: { kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas: 2 } },
      status: {
        stable: { state: true, message: null },
        paused: { state: false },
        available: { state: true },
        failed: { state: false },
        retryable: { state: false },
      },
      moniker: { app: 'shop', cluster: 'deployment web' },
      warnings: [],
      metrics: [],
    });
    expect(answer.body.artifacts).toEqual([
      { type: 'docker/image', name: 'registry.example/web', reference: 'registry.example/web:1.4' },
      { type: 'orchestrator/configMap', name: 'web-settings', reference: 'web-settings' },
    ]);
    // The controller's events about this very object (by uid), read live from the cluster.
    const uid = answer.body.manifest.metadata.uid;
    expect(answer.body.events.length).toBeGreaterThan(0);
    for (const event of answer.body.events) {
      expect(event).toMatchObject({
        kind: 'Event',
        involvedObject: { uid, kind: 'Deployment', name: 'web' },
      });
    }
    expect(answer.body.events.map((e: { reason: string }) => e.reason)).toContain('ScalingReplicaSet');
    const without = await dev.get(manifestPath('deployment web', '?includeEvents=false'));
    expect(without.body.events).toEqual([]);
  });

  it('answers paused after a pause rollout through POST /ops', async () => {
    await run({ pauseRolloutManifest: { account: ACCOUNT, manifestName: 'deployment web', location: NS } });
    const answer = await until(
      () => dev.get(manifestPath('deployment web', '?includeEvents=false')),
      (a) => a.body?.status?.paused?.state === true,
    );
    expect(answer.body.manifest.spec.paused).toBe(true);
    expect(answer.body.status.paused).toEqual({ state: true, message: 'Deployment is paused' });
    await run({ resumeRolloutManifest: { account: ACCOUNT, manifestName: 'deployment web', location: NS } });
    const resumed = await until(
      () => dev.get(manifestPath('deployment web', '?includeEvents=false')),
      (a) => a.body?.status?.paused?.state === false,
    );
    expect(resumed.body.status.paused.state).toBe(false);
  });

  it('answers a ConfigMap (no rules: stable) and a ReplicaSet version with its sequence', async () => {
    const configMap = await dev.get(manifestPath('configMap web-settings'));
    expect(configMap.status).toBe(200);
    expect(configMap.body).toMatchObject({
      name: 'configMap web-settings',
      manifest: { data: { color: 'blue' } },
      status: { stable: { state: true }, available: { state: true } },
      moniker: { app: 'shop', cluster: 'configMap web-settings' },
      artifacts: [],
    });
    const version = await until(
      () => dev.get(manifestPath('replicaSet web-rs-v001', '?includeEvents=false')),
      (a) => a.body?.status?.stable?.state === true,
    );
    expect(version.body).toMatchObject({
      moniker: { app: 'shop', cluster: 'replicaSet web-rs', sequence: 1 },
      status: { stable: { state: true }, available: { state: true } },
    });
  });

  it('reads a cluster-scoped object the account does not cache from the cluster, in both path forms', async () => {
    for (const path of [
      `/manifests/${ACCOUNT}/_/namespace%20${NS}`,
      `/manifests/${ACCOUNT}/namespace%20${NS}`,
    ]) {
      const answer = await dev.get(`${path}?includeEvents=false`);
      expect(answer.status, path).toBe(200);
      expect(answer.body).toMatchObject({
        name: `namespace ${NS}`,
        location: '',
        manifest: { kind: 'Namespace', metadata: { name: NS } },
        status: { stable: { state: true } },
      });
    }
  });

  it('answers 404 with the manifest named when the cluster has no such object, 400 for a bad name', async () => {
    const missing = await dev.get(manifestPath('configMap nothing-here'));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('name: configMap nothing-here');
    const unknownKind = await dev.get(manifestPath('gizmo thing'));
    expect(unknownKind.status).toBe(404);
    expect(unknownKind.body.message).toContain("unknown kind 'gizmo'");
    const badName = await dev.get(manifestPath('deployment'));
    expect(badName.status).toBe(400);
    expect(badName.body.message).toContain('name');
  });

  it('refuses a user without READ on the account (403)', async () => {
    expect((await guest.get(manifestPath('deployment web'))).status).toBe(403);
    expect((await guest.get(dynamicPath('replicaSet', 'replicaSet web-rs', 'newest'))).status).toBe(403);
  });
});

describe('dynamic targets of a cluster', () => {
  it('names the newest, second newest, oldest, largest and smallest version', async () => {
    const newest = await until(
      () => dev.get(dynamicPath('replicaSet', 'replicaSet web-rs', 'second_newest')),
      (a) => a.status === 200,
    );
    expect(newest.body).toEqual({ kind: 'replicaSet', namespace: NS, name: 'web-rs-v000' });
    const target = async (criteria: string) =>
      (await dev.get(dynamicPath('replicaSet', 'replicaSet web-rs', criteria))).body.name;
    expect(await target('newest')).toBe('web-rs-v001');
    expect(await target('oldest')).toBe('web-rs-v000');
    expect(await target('largest')).toBe('web-rs-v001');
    expect(await target('smallest')).toBe('web-rs-v000');
    const all = await dev.get(`/manifests/${ACCOUNT}/${NS}/replicaSet/cluster/shop/replicaSet%20web-rs`);
    expect(all.body).toHaveLength(2);
  });

  it('answers 404 for a cluster without such a version and 400 naming a bad criteria', async () => {
    const none = await dev.get(dynamicPath('replicaSet', 'replicaSet nothing', 'newest'));
    expect(none.status).toBe(404);
    expect(none.body.message).toContain('No manifests matching');
    const single = await dev.get(dynamicPath('deployment', 'deployment web', 'second_newest'));
    expect(single.status).toBe(404);
    const bad = await dev.get(dynamicPath('replicaSet', 'replicaSet web-rs', 'biggest'));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("criteria: unknown criteria 'biggest'");
  });
});

describe('provider paths and the fixes Spinnaker needs', () => {
  it('answers a server group by account, namespace and name, and by application', async () => {
    const one = await until(
      () => dev.get(`/serverGroups/${ACCOUNT}/${NS}/replicaSet%20web-rs-v001`),
      (a) => a.status === 200 && a.body.instances.length === 2,
    );
    expect(one.body).toMatchObject({
      name: 'replicaSet web-rs-v001',
      region: NS,
      moniker: { app: 'shop', cluster: 'replicaSet web-rs', sequence: 1 },
      capacity: { desired: 2 },
      loadBalancers: ['service web-rs'],
      disabled: false,
    });
    expect((await dev.get(`/serverGroups/${ACCOUNT}/${NS}/replicaSet%20missing`)).status).toBe(404);
    const listed = await dev.get('/serverGroups?applications=shop,unknown-app');
    expect(listed.status).toBe(200);
    expect(listed.body.map((sg: { name: string }) => sg.name)).toEqual(
      expect.arrayContaining(['replicaSet web-rs-v000', 'replicaSet web-rs-v001']),
    );
    expect((await dev.get('/serverGroups')).status).toBe(400);
  });

  it('answers a load balancer with the server group it selects, and [] for none', async () => {
    const answer = await dev.get(`/orchestrator/loadBalancers/${ACCOUNT}/${NS}/service%20web-rs`);
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(1);
    expect(answer.body[0]).toMatchObject({ name: 'service web-rs', moniker: { app: 'shop' } });
    expect(answer.body[0].serverGroups.map((sg: { name: string }) => sg.name)).toEqual([
      'replicaSet web-rs-v001',
    ]);
    expect((await dev.get(`/orchestrator/loadBalancers/${ACCOUNT}/${NS}/service%20none`)).body).toEqual([]);
  });

  it('gives cluster records their application and expanded credentials their spinnakerKindMap', async () => {
    const clusters = await dev.get(`/applications/shop/clusters/${ACCOUNT}/replicaSet%20web-rs`);
    expect(clusters.status).toBe(200);
    expect(clusters.body).toEqual([
      expect.objectContaining({ name: 'replicaSet web-rs', application: 'shop' }),
    ]);
    const credentials = await dev.get('/credentials?expand=true');
    const account = credentials.body.find((a: { name: string }) => a.name === ACCOUNT);
    expect(account.spinnakerKindMap).toMatchObject({
      deployment: 'serverGroupManagers',
      replicaSet: 'serverGroups',
      service: 'loadBalancers',
      pod: 'instances',
      networkPolicy: 'securityGroups',
      configMap: 'configs',
    });
    expect((await dev.get('/credentials')).body[0]).not.toHaveProperty('spinnakerKindMap');
  });
});
