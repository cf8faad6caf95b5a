// deployManifest and deleteManifest as Spinnaker's Kubernetes provider carries them out, against the
// real cluster through a real agent and cloudctl, written from what clouddriver's own integration
// cases check: versioned ConfigMaps, Secrets and ReplicaSets (`-v000`, a new version for new content,
// the same version for the same content, none when the manifest says so), label selectors, the
// account's default namespace and its namespace list, `use-source-capacity`, the labels clouddriver
// adds, the provider path `/orchestrator/ops`, a 400 naming what cloudctl does not carry out; deletes
// by name, by label, of nothing, and with a bad cascade value.
import { describe, expect, it } from 'vitest';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone as taskOf } from '../../support/task-wait.ts';
import { apiClient } from '../http-client.ts';

const NS = 'spin-deploy';
const ACCOUNT = 'spin-deploy';
const TOKENS = { agent: 'agent-token-spin-8d1c', ops: 'ops-token-spin-40a7' };

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
  kinds: ['deployment', 'replicaSet', 'configMap', 'secret', 'pod', 'service'],
  read: ['ops'],
  write: ['ops'],
});
const ops = {
  get: (path: string) => apiClient(fixture.system.url, TOKENS.ops).get(path),
  post: (path: string, body: unknown) => apiClient(fixture.system.url, TOKENS.ops).post(path, body),
};

interface Task {
  status: { completed: boolean; failed: boolean };
  resultObjects: Array<{ manifestNamesByNamespace: Record<string, string[]>; createdArtifacts: unknown[] }>;
  history: unknown[];
}

async function taskDone(id: string): Promise<Task> {
  return taskOf(apiClient(fixture.system.url, TOKENS.ops), id);
}

/** Deploys as Orca does, through the provider path, and answers the names the task deployed. */
async function deploy(request: Record<string, unknown>): Promise<Task> {
  const started = await ops.post('/orchestrator/ops', [
    { deployManifest: { account: ACCOUNT, cloudProvider: 'orchestrator', source: 'text', ...request } },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const task = await taskDone(started.body.id);
  expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
  return task;
}

const names = (task: Task) => task.resultObjects[0]?.manifestNamesByNamespace;

const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...extra },
  data,
});

const replicaSet = (name: string, image: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: NS, annotations },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
  },
});

async function get(path: string) {
  return fixture.cluster.request('GET', path);
}

describe('versioned resources', () => {
  it('deploys a ConfigMap as -v000, new content as -v001 beside it, the same content as the same version', async () => {
    const first = await deploy({ moniker: { app: 'cfg' }, manifests: [configMap('settings', { a: '1' })] });
    expect(names(first)).toEqual({ [NS]: ['configMap settings-v000'] });
    const second = await deploy({ moniker: { app: 'cfg' }, manifests: [configMap('settings', { a: '2' })] });
    expect(names(second)).toEqual({ [NS]: ['configMap settings-v001'] });
    const again = await deploy({ moniker: { app: 'cfg' }, manifests: [configMap('settings', { a: '2' })] });
    expect(names(again)).toEqual({ [NS]: ['configMap settings-v001'] });

    const v0 = await get(`/api/v1/namespaces/${NS}/configmaps/settings-v000`);
    expect(v0.json).toMatchObject({ data: { a: '1' } });
    const v1 = await get(`/api/v1/namespaces/${NS}/configmaps/settings-v001`);
    expect(v1.json).toMatchObject({
      data: { a: '2' },
      metadata: {
        annotations: {
          'artifact.spinnaker.io/name': 'settings',
          'artifact.spinnaker.io/type': 'orchestrator/configMap',
          'artifact.spinnaker.io/location': NS,
          'artifact.spinnaker.io/version': 'v001',
          'moniker.spinnaker.io/application': 'cfg',
          'moniker.spinnaker.io/cluster': 'configMap settings',
          'moniker.spinnaker.io/sequence': '1',
        },
        labels: {
          'app.kubernetes.io/name': 'cfg',
          'app.kubernetes.io/managed-by': 'spinnaker',
          'moniker.spinnaker.io/sequence': '1',
        },
      },
    });
    expect(second.resultObjects[0]?.createdArtifacts).toEqual([
      {
        type: 'orchestrator/configMap',
        name: 'settings',
        reference: 'settings-v001',
        location: NS,
        version: 'v001',
        metadata: { account: ACCOUNT },
        customKind: false,
      },
    ]);
  });

  it('versions a Secret the same way and keeps its values out of the task', async () => {
    const secret = (value: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: NS },
      data: { password: Buffer.from(value).toString('base64') },
    });
    const first = await deploy({ moniker: { app: 'sec' }, manifests: [secret('hunter2')] });
    const second = await deploy({ moniker: { app: 'sec' }, manifests: [secret('hunter3')] });
    expect(names(first)).toEqual({ [NS]: ['secret creds-v000'] });
    expect(names(second)).toEqual({ [NS]: ['secret creds-v001'] });
    expect((await get(`/api/v1/namespaces/${NS}/secrets/creds-v000`)).status).toBe(200);
    expect(JSON.stringify(second)).not.toContain(Buffer.from('hunter3').toString('base64'));
  });

  it('leaves a manifest annotated versioned: false unversioned', async () => {
    const task = await deploy({
      moniker: { app: 'plain' },
      manifests: [
        configMap('plain', { a: '1' }, { annotations: { 'strategy.spinnaker.io/versioned': 'false' } }),
      ],
    });
    expect(names(task)).toEqual({ [NS]: ['configMap plain'] });
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/plain`)).status).toBe(200);
  });

  it('steps a ReplicaSet to -v001 for a new image: one cluster, two sequences', async () => {
    await deploy({ moniker: { app: 'rs' }, manifests: [replicaSet('front', 'registry.example/front:1')] });
    const next = await deploy({
      moniker: { app: 'rs' },
      manifests: [replicaSet('front', 'registry.example/front:2')],
    });
    expect(names(next)).toEqual({ [NS]: ['replicaSet front-v001'] });
    const rs = await get(`/apis/apps/v1/namespaces/${NS}/replicasets/front-v001`);
    expect(rs.json).toMatchObject({
      metadata: {
        annotations: {
          'moniker.spinnaker.io/cluster': 'replicaSet front',
          'moniker.spinnaker.io/sequence': '1',
        },
      },
      spec: {
        template: {
          metadata: {
            labels: {
              app: 'front',
              'app.kubernetes.io/managed-by': 'spinnaker',
              'moniker.spinnaker.io/sequence': '1',
            },
          },
          spec: { containers: [{ image: 'registry.example/front:2' }] },
        },
      },
    });
    expect((await get(`/apis/apps/v1/namespaces/${NS}/replicasets/front-v000`)).status).toBe(200);
  });

  it('deploys the same ReplicaSet twice as two versions: its pod template carries its sequence', async () => {
    const same = { moniker: { app: 'twice' }, manifests: [replicaSet('twice', 'registry.example/twice:1')] };
    expect(names(await deploy(same))).toEqual({ [NS]: ['replicaSet twice-v000'] });
    expect(names(await deploy(same))).toEqual({ [NS]: ['replicaSet twice-v001'] });
  });

  it('use-source-capacity keeps the replicas of the newest version', async () => {
    const annotations = { 'strategy.spinnaker.io/use-source-capacity': 'true' };
    await deploy({
      moniker: { app: 'cap' },
      manifests: [replicaSet('cap', 'registry.example/cap:1', annotations)],
    });
    await fixture.cluster.request('PATCH', `/apis/apps/v1/namespaces/${NS}/replicasets/cap-v000`, {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    await deploy({
      moniker: { app: 'cap' },
      manifests: [replicaSet('cap', 'registry.example/cap:2', annotations)],
    });
    const rs = await get(`/apis/apps/v1/namespaces/${NS}/replicasets/cap-v001`);
    expect(rs.json).toMatchObject({ spec: { replicas: 3 } });
  });
});

describe('traffic management on deploy', () => {
  it("annotates the ReplicaSet with its Service and puts the Service's selector in its pod template", async () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'served', namespace: NS },
      spec: { selector: { serves: 'served' }, ports: [{ port: 80 }] },
    };
    const task = await deploy({
      moniker: { app: 'served' },
      trafficManagement: { enabled: true, options: { services: ['service served'], enableTraffic: true } },
      manifests: [service, replicaSet('served', 'registry.example/served:1')],
    });
    expect(names(task)?.[NS]?.sort()).toEqual(['replicaSet served-v000', 'service served']);
    const rs = await get(`/apis/apps/v1/namespaces/${NS}/replicasets/served-v000`);
    expect(rs.json).toMatchObject({
      metadata: { annotations: { 'traffic.spinnaker.io/load-balancers': '["service served"]' } },
      spec: { template: { metadata: { labels: { app: 'served', serves: 'served' } } } },
    });
  });
});

describe('placement and selection', () => {
  it("puts a manifest without a namespace in the account's default namespace, its first listed", async () => {
    const task = await deploy({
      moniker: { app: 'nons' },
      manifests: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-namespace' }, data: { a: '1' } },
      ],
    });
    expect(names(task)).toEqual({ [NS]: ['configMap no-namespace-v000'] });
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/no-namespace-v000`)).status).toBe(200);
  });

  it('refuses a namespace the account does not list with 400 wrongNamespace, and deploys nothing', async () => {
    const refused = await ops.post('/orchestrator/ops', [
      {
        deployManifest: {
          account: ACCOUNT,
          namespaceOverride: 'kube-public',
          moniker: { app: 'elsewhere' },
          manifests: [configMap('elsewhere', { a: '1' })],
        },
      },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('wrongNamespace');
    expect(refused.body.message).toContain('body[0].deployManifest.manifests[0].metadata.namespace');
    expect((await get('/api/v1/namespaces/kube-public/configmaps/elsewhere-v000')).status).toBe(404);
  });

  it('deploys only the manifests the label selectors match', async () => {
    const labelled = (name: string, value: string) =>
      configMap(name, { a: '1' }, { labels: { pick: value } });
    const task = await deploy({
      moniker: { app: 'sel' },
      labelSelectors: { selectors: [{ kind: 'EQUALS', key: 'pick', values: ['one'] }] },
      manifests: [labelled('sel-one', 'one'), labelled('sel-two', 'two')],
    });
    expect(names(task)).toEqual({ [NS]: ['configMap sel-one-v000'] });
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/sel-two-v000`)).status).toBe(404);
  });
});

describe('what cannot be carried out as asked is refused with a 400 naming why, not dropped', () => {
  it.each([
    [{ requiredArtifacts: [{ type: 'docker/image', name: 'x', reference: 'x:1' }] }, 'requiredArtifacts'],
    [
      { trafficManagement: { enabled: true, options: { services: ['service web'] } } },
      'traffic management needs exactly one ReplicaSet in the request, found 0',
    ],
    [
      { manifests: [configMap('bad', {}, { annotations: { 'strategy.spinnaker.io/versioned': 'maybe' } })] },
      'strategy.spinnaker.io/versioned',
    ],
    [
      { manifests: [configMap('bad', {}, { annotations: { 'strategy.spinnaker.io/rolling': 'true' } })] },
      'strategy.spinnaker.io/rolling',
    ],
  ])('%j is a 400 naming %s', async (fields, named) => {
    const refused = await ops.post('/orchestrator/ops', [
      {
        deployManifest: {
          account: ACCOUNT,
          moniker: { app: 'refused' },
          manifests: [configMap('r', {})],
          ...fields,
        },
      },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(named);
  });
});

describe('deleteManifest', () => {
  async function deleteTask(fields: Record<string, unknown>): Promise<Task> {
    const started = await ops.post('/orchestrator/ops', [
      { deleteManifest: { account: ACCOUNT, location: NS, options: { cascading: true }, ...fields } },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const task = await taskDone(started.body.id);
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    return task;
  }

  it('deletes a version named by a resolved dynamic target, and reports it', async () => {
    await deploy({ moniker: { app: 'dyn' }, manifests: [replicaSet('dyn', 'registry.example/dyn:1')] });
    await deploy({ moniker: { app: 'dyn' }, manifests: [replicaSet('dyn', 'registry.example/dyn:2')] });
    const task = await deleteTask({
      app: 'dyn',
      mode: 'dynamic',
      cluster: 'replicaSet dyn',
      criteria: 'newest',
      kind: 'replicaSet',
      manifestName: 'replicaSet dyn-v001',
    });
    expect(names(task)).toEqual({ [NS]: ['replicaSet dyn-v001'] });
    expect((await get(`/apis/apps/v1/namespaces/${NS}/replicasets/dyn-v001`)).status).toBe(404);
    expect((await get(`/apis/apps/v1/namespaces/${NS}/replicasets/dyn-v000`)).status).toBe(200);
  });

  it('reports nothing deleted for an object that does not exist', async () => {
    const task = await deleteTask({ mode: 'static', manifestName: 'deployment not-there' });
    expect(names(task)).toEqual({});
  });

  it('deletes every object of the kinds that the label selectors match, and names them', async () => {
    const labelled = (name: string, value: string) =>
      configMap(name, { a: '1' }, { labels: { sweep: value } });
    await deploy({
      moniker: { app: 'sweep' },
      manifests: [labelled('sweep-a', 'yes'), labelled('sweep-b', 'yes'), labelled('sweep-c', 'no')],
    });
    const task = await deleteTask({
      kinds: ['configMap'],
      labelSelectors: { selectors: [{ kind: 'EQUALS', key: 'sweep', values: ['yes'] }] },
    });
    expect(names(task)?.[NS]?.sort()).toEqual(['configMap sweep-a-v000', 'configMap sweep-b-v000']);
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/sweep-a-v000`)).status).toBe(404);
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/sweep-c-v000`)).status).toBe(200);
  });

  it('refuses a bad cascade value with a 400 naming it, and deletes nothing', async () => {
    await deploy({
      moniker: { app: 'keep' },
      manifests: [
        configMap('kept', { a: '1' }, { annotations: { 'strategy.spinnaker.io/versioned': 'false' } }),
      ],
    });
    const refused = await ops.post('/orchestrator/ops', [
      {
        deleteManifest: {
          account: ACCOUNT,
          location: NS,
          manifestName: 'configMap kept',
          options: { cascading: 'bogus' },
        },
      },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('invalid cascade value (bogus)');
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/kept`)).status).toBe(200);
  });
});

describe('cleanupArtifacts', () => {
  it('keeps the newest versions max-version-history allows and deletes the older ones', async () => {
    const annotations = { 'strategy.spinnaker.io/max-version-history': '2' };
    let last: Task | undefined;
    for (const value of ['1', '2', '3']) {
      last = await deploy({
        moniker: { app: 'hist' },
        manifests: [configMap('hist', { value }, { annotations })],
      });
    }
    const deployed = (last as unknown as { resultObjects: Array<{ manifests: unknown[] }> }).resultObjects[0]
      ?.manifests;
    const started = await ops.post('/orchestrator/ops', [
      { cleanupArtifacts: { account: ACCOUNT, manifests: deployed } },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const task = await taskDone(started.body.id);
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    expect(names(task)).toEqual({ [NS]: ['configMap hist-v000'] });
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/hist-v000`)).status).toBe(404);
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/hist-v001`)).status).toBe(200);
    expect((await get(`/api/v1/namespaces/${NS}/configmaps/hist-v002`)).status).toBe(200);
  });
});

describe('patchManifest with artifacts', () => {
  it('binds a required docker image into a merge patch of the pod template', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'patched', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'patched' } },
        template: {
          metadata: { labels: { app: 'patched' } },
          spec: { containers: [{ name: 'engine', image: 'registry.example/engine:1.16' }] },
        },
      },
    };
    await deploy({ moniker: { app: 'patched' }, manifests: [deployment] });
    const image = {
      type: 'docker/image',
      name: 'registry.example/engine',
      reference: 'registry.example/engine:1.18',
    };
    const started = await ops.post('/orchestrator/ops', [
      {
        patchManifest: {
          account: ACCOUNT,
          location: NS,
          manifestName: 'deployment patched',
          options: { mergeStrategy: 'strategic', record: true },
          patchBody: {
            spec: {
              template: { spec: { containers: [{ name: 'engine', image: 'registry.example/engine' }] } },
            },
          },
          requiredArtifacts: [image],
          allArtifacts: [{ ...image, reference: 'registry.example/engine:1.19' }],
        },
      },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const task = await taskDone(started.body.id);
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    expect(names(task)).toEqual({ [NS]: ['deployment patched'] });
    const live = await get(`/apis/apps/v1/namespaces/${NS}/deployments/patched`);
    expect(live.json).toMatchObject({
      spec: {
        template: { spec: { containers: [{ name: 'engine', image: 'registry.example/engine:1.18' }] } },
      },
    });
  });
});
