// clouddriver behaviours the other Spinnaker files leave out, against the real cluster through a real
// agent and cloudctl, each through POST /ops as Orca sends it: a delete with `cascading: false` that
// leaves the pods running; `use-source-capacity` on an unversioned Deployment; a red/black deploy of
// two versions whose follow-up disables the first, so that the Service selects only the newer one's
// pods; resizeServerGroup; and an operation description whose unset fields Orca sent as null.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone as taskOf } from '../../support/task-wait.ts';
import { apiClient } from '../http-client.ts';

const NS = 'spin-behave';
const ACCOUNT = 'spin-behave';
const TOKENS = { agent: 'agent-token-behave-5e2a', ops: 'ops-token-behave-c19f' };

let dir = '';
let cluster: ClusterClient;
let system: TestSystem;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${NS}-`));
  cluster = sharedClusterClient();
  const plan = {
    dir,
    agent: { id: NS, token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'configMap', 'pod', 'service'],
      read: ['ops'],
      write: ['ops'],
    },
    // Where the harness takes it: on a loaded machine cloudctl's first start takes longer than 30 s.
    readyTimeoutMs: 120_000,
  };
  system = await TestSystem.startCloudctl(plan);
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

const fixture = {
  get system() {
    return system;
  },
  get cluster() {
    return cluster;
  },
};
const ops = () => apiClient(fixture.system.url, TOKENS.ops);
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 40_000, interval: 250 });

interface Task {
  status: { completed: boolean; failed: boolean };
  resultObjects: Array<{ manifestNamesByNamespace?: Record<string, string[]> }>;
  history: Array<{ phase: string; status: string }>;
}

interface Pod {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  status?: { phase?: string };
}

/** Runs operations as one task through the provider path, as Orca does, and answers the task once done. */
async function run(operations: Array<Record<string, unknown>>): Promise<Task> {
  const started = await ops().post('/orchestrator/ops', operations);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const task: Task = await taskOf(ops(), started.body.id);
  expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
  return task;
}

const deploy = (app: string, manifests: unknown[], extra: Record<string, unknown> = {}) =>
  run([
    {
      deployManifest: {
        account: ACCOUNT,
        cloudProvider: 'orchestrator',
        moniker: { app },
        manifests,
        ...extra,
      },
    },
  ]);

async function get(path: string) {
  return fixture.cluster.request('GET', path);
}

async function pods(labelSelector?: string): Promise<Pod[]> {
  const query = labelSelector === undefined ? '' : `?labelSelector=${encodeURIComponent(labelSelector)}`;
  return ((await get(`/api/v1/namespaces/${NS}/pods${query}`)).json as { items: Pod[] }).items;
}

/** The pods a ReplicaSet controls, by name. */
async function podsOf(replicaSet: string): Promise<Pod[]> {
  return (await pods()).filter((p) => p.metadata.ownerReferences?.some((o) => o.name === replicaSet));
}

const names = (list: Pod[]) => list.map((p) => p.metadata.name).sort();

const workload = (kind: 'Deployment' | 'ReplicaSet', name: string, replicas: number, image: string) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: NS, annotations: {} as Record<string, string> },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
  },
});

describe('deleteManifest with cascading: false', () => {
  it('deletes a Deployment and orphans its ReplicaSet, whose pods keep running', async () => {
    await deploy('orphan', [workload('Deployment', 'orphan', 2, 'registry.example/orphan:1')]);
    await eventually(async () => {
      const running = (await pods('app=orphan')).filter((p) => p.status?.phase === 'Running');
      expect(running).toHaveLength(2);
    });
    const before = names(await pods('app=orphan'));
    const [replicaSet] = (
      (await get(`/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3Dorphan`)).json as {
        items: Pod[];
      }
    ).items;
    const rsName = replicaSet?.metadata.name ?? '';
    expect(replicaSet?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'orphan' });

    const task = await run([
      {
        deleteManifest: {
          account: ACCOUNT,
          location: NS,
          manifestName: 'deployment orphan',
          options: { cascading: false },
        },
      },
    ]);
    expect(task.resultObjects[0]?.manifestNamesByNamespace).toEqual({ [NS]: ['deployment orphan'] });
    await eventually(async () => {
      expect((await get(`/apis/apps/v1/namespaces/${NS}/deployments/orphan`)).status).toBe(404);
      // The garbage collector takes the Deployment's ownership off what it orphans.
      const rs = await get(`/apis/apps/v1/namespaces/${NS}/replicasets/${rsName}`);
      expect(rs.status).toBe(200);
      expect((rs.json as Pod).metadata.ownerReferences ?? []).toEqual([]);
    });
    const after = await podsOf(rsName);
    expect(names(after)).toEqual(before);
    expect(after.every((p) => p.status?.phase === 'Running')).toBe(true);
  }, 90_000);
});

describe('use-source-capacity on an unversioned Deployment', () => {
  it('keeps the replicas the live Deployment runs, not those of the manifest', async () => {
    const manifest = (replicas: number, image: string) => {
      const m = workload('Deployment', 'sourced', replicas, image);
      m.metadata.annotations['strategy.spinnaker.io/use-source-capacity'] = 'true';
      return m;
    };
    // Nothing runs yet: the manifest's own replicas.
    await deploy('sourced', [manifest(1, 'registry.example/sourced:1')]);
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/sourced`;
    expect((await get(path)).json).toMatchObject({ spec: { replicas: 1 } });
    // Scaled by hand (an autoscaler, an operator) to 3.
    await run([
      { scaleManifest: { account: ACCOUNT, location: NS, manifestName: 'deployment sourced', replicas: 3 } },
    ]);
    await eventually(async () => {
      expect(await pods('app=sourced')).toHaveLength(3);
    });

    const task = await deploy('sourced', [manifest(2, 'registry.example/sourced:2')]);
    expect(task.resultObjects[0]?.manifestNamesByNamespace).toEqual({ [NS]: ['deployment sourced'] });
    const live = (await get(path)).json as {
      spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
    };
    expect(live.spec.replicas).toBe(3);
    expect(live.spec.template.spec.containers[0]?.image).toBe('registry.example/sourced:2');
  }, 90_000);
});

describe('a red/black deploy of two versions', () => {
  const SERVICE = 'checkout';
  const selector = { frontend: 'checkout' };
  const traffic = {
    trafficManagement: {
      enabled: true,
      options: { strategy: 'redblack', services: [`service ${SERVICE}`], enableTraffic: true, namespace: NS },
    },
  };

  async function serverGroupPods(name: string) {
    const answer = await ops().get('/applications/checkout/serverGroups?expand=true');
    expect(answer.status).toBe(200);
    return answer.body.find((sg: { name: string }) => sg.name === `replicaSet ${name}`)?.instanceCounts
      ?.total;
  }

  it('leaves only the newer version in the Service once the older is disabled', async () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: SERVICE, namespace: NS },
      spec: { selector, ports: [{ port: 80, targetPort: 8080 }] },
    };
    const first = await deploy(
      'checkout',
      [service, workload('ReplicaSet', 'checkout', 2, 'registry.example/checkout:1')],
      traffic,
    );
    expect(first.resultObjects[0]?.manifestNamesByNamespace?.[NS]?.sort()).toEqual([
      'replicaSet checkout-v000',
      `service ${SERVICE}`,
    ]);
    await eventually(async () => expect(await serverGroupPods('checkout-v000')).toBe(2));

    const second = await deploy(
      'checkout',
      [workload('ReplicaSet', 'checkout', 2, 'registry.example/checkout:2')],
      traffic,
    );
    expect(second.resultObjects[0]?.manifestNamesByNamespace).toEqual({ [NS]: ['replicaSet checkout-v001'] });
    await eventually(async () => expect(await serverGroupPods('checkout-v001')).toBe(2));
    // Both versions take traffic until the strategy's follow-up: Orca disables the older one.
    expect(names(await pods('frontend=checkout'))).toEqual(
      names([...(await podsOf('checkout-v000')), ...(await podsOf('checkout-v001'))]),
    );

    await run([
      { disableManifest: { account: ACCOUNT, location: NS, manifestName: 'replicaSet checkout-v000' } },
    ]);

    const newer = names(await podsOf('checkout-v001'));
    const older = await podsOf('checkout-v000');
    expect(newer).toHaveLength(2);
    expect(older).toHaveLength(2);
    // What the Service selects, asked of the API server with the Service's own selector.
    const live = (await get(`/api/v1/namespaces/${NS}/services/${SERVICE}`)).json as {
      spec: { selector: Record<string, string> };
    };
    expect(live.spec.selector).toEqual(selector);
    const query = Object.entries(live.spec.selector)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    expect(names(await pods(query))).toEqual(newer);
    for (const pod of older) expect(pod.metadata.labels).not.toHaveProperty('frontend');
    // The older version keeps its pods (its own selector is untouched), out of traffic.
    expect(older.every((p) => p.metadata.labels?.app === 'checkout')).toBe(true);
    // The controller manager's EndpointSlices follow the selector: only the newer pods are endpoints.
    await eventually(async () => {
      const slices = (
        await get(
          `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${SERVICE}`)}`,
        )
      ).json as { items: Array<{ endpoints?: Array<{ targetRef?: { name: string } }> }> };
      const endpoints = slices.items.flatMap((s) => s.endpoints ?? []).map((e) => e.targetRef?.name ?? '');
      expect(endpoints.sort()).toEqual(newer);
    });
  }, 120_000);
});

describe('resizeServerGroup', () => {
  it('scales a server group to capacity.desired, named as Orca names it, with no result object', async () => {
    await deploy('sized', [workload('ReplicaSet', 'sized', 1, 'registry.example/sized:1')]);
    const task = await run([
      {
        resizeServerGroup: {
          credentials: ACCOUNT,
          cloudProvider: 'orchestrator',
          serverGroupName: 'replicaSet sized-v000',
          region: NS,
          capacity: { min: 1, max: 5, desired: 3 },
          interestingHealthProviderNames: null,
        },
      },
    ]);
    expect(task.resultObjects).toEqual([]);
    expect((await get(`/apis/apps/v1/namespaces/${NS}/replicasets/sized-v000`)).json).toMatchObject({
      spec: { replicas: 3 },
    });
    await eventually(async () => expect(await podsOf('sized-v000')).toHaveLength(3));
  }, 90_000);
});

describe('an operation description with the fields Orca left unset sent as null', () => {
  it('patches with skipExpressionEvaluation and the artifact fields null, and refuses a required field null', async () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'patched',
        namespace: NS,
        annotations: { 'strategy.spinnaker.io/versioned': 'false' },
      },
      data: { a: '1' },
    };
    await deploy('patched', [configMap]);
    const patch = {
      account: ACCOUNT,
      cloudProvider: 'orchestrator',
      location: NS,
      manifestName: 'configMap patched',
      patchBody: { data: { b: '2' } },
      options: { mergeStrategy: 'merge', record: null },
      skipExpressionEvaluation: null,
      enableArtifactBinding: null,
      requiredArtifacts: null,
      allArtifacts: null,
      manifestArtifactAccount: null,
    };
    const task = await run([{ patchManifest: patch }]);
    expect(task.resultObjects[0]?.manifestNamesByNamespace).toEqual({ [NS]: ['configMap patched'] });
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/patched`)).json).toMatchObject({
      data: { a: '1', b: '2' },
    });

    const refused = await ops().post('/orchestrator/ops', [
      { patchManifest: { ...patch, options: { mergeStrategy: null } } },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^body\[0\]\.patchManifest\.options\.mergeStrategy: /);
  }, 60_000);
});
