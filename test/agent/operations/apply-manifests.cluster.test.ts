import { beforeAll, describe, expect, it } from 'vitest';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { type ApplyTarget, applyManifests } from '../../../src/agent/operations/apply/apply-manifests.ts';
import { InvalidManifestError } from '../../../src/agent/operations/apply/manifest.ts';
import { ApplyConflictError } from '../../../src/agent/operations/apply/server-side-apply.ts';
import {
  ClusterResources,
  KubeApiError,
  KubeHttp,
  type KubeRequest,
  type KubeResponse,
  resolveKubeConfig,
  UnknownKindError,
} from '../../../src/kube/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';
import { type SharedCluster, sharedCluster } from '../../cluster/index.ts';
import { writeConfig } from '../config/config-fixture.ts';

let cluster: SharedCluster;
let http: KubeHttp;
beforeAll(async () => {
  cluster = sharedCluster();
  const account = await accountConfig('');
  const resolved = resolveKubeConfig(account.config.orchestrator.accounts[0]!, { env: {}, noProxy: false });
  http = new KubeHttp(resolved.kubeConfig, resolved.server);
});

async function accountConfig(orchestratorExtra: string) {
  const loaded = await loadConfig(
    writeConfig(
      `orchestrator:\n${orchestratorExtra}  accounts:\n    - name: test\n      orchConfigFile: ${cluster.kubeconfigPath}\n`,
    ),
    { fetchSecrets: false },
  );
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  return { config: loaded.config };
}

async function target(orchestratorExtra = ''): Promise<ApplyTarget> {
  const { config }: { config: AgentConfig } = await accountConfig(orchestratorExtra);
  return {
    http,
    resources: new ClusterResources(http),
    config,
    account: config.orchestrator.accounts[0]!,
    patchSchemas: new Map(),
    // The test kubeconfig's context names no namespace (default-namespace.ts).
    defaultNamespace: 'default',
  };
}
const SSA = '  serverSideApply:\n    enabled: always\n';
const apply = (t: ApplyTarget, manifests: unknown[], force = false) =>
  applyManifests(t, manifests, { force, crdTimeoutMs: 20_000 });

async function get(path: string): Promise<unknown> {
  return (await http.request({ verb: 'get', method: 'GET', path })).body;
}

function managedFields(live: unknown) {
  const entries =
    isRecord(live) && isRecord(live.metadata) && Array.isArray(live.metadata.managedFields)
      ? live.metadata.managedFields
      : [];
  return entries.filter(isRecord);
}
const managers = (live: unknown) => managedFields(live).map((e) => String(e.manager));

function deployment(
  name: string,
  env: Array<{ name: string; value: string }>,
  labels: Record<string, string>,
) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/app:1', env }] },
      },
    },
  };
}

describe.each([
  ['client-side', ''],
  ['server-side', SSA],
])('%s apply', (mode, settings) => {
  const name = `removal-${mode}`;
  it('removes a field dropped from the manifest', async () => {
    const t = await target(settings);
    const first = await apply(t, [
      deployment(
        name,
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        { app: name, tier: 'web' },
      ),
    ]);
    expect(first).toEqual([expect.objectContaining({ kind: 'Deployment', name, mode })]);
    await apply(t, [deployment(name, [{ name: 'A', value: '1' }], { app: name })]);
    const live = await get(`/apis/apps/v1/namespaces/default/deployments/${name}`);
    expect(live).toHaveProperty('spec.template.spec.containers.0.env', [{ name: 'A', value: '1' }]);
    expect(live).toHaveProperty('metadata.labels', { app: name });
  });

  it('keeps fields another manager set', async () => {
    const t = await target(settings);
    const other = `kept-${mode}`;
    await apply(t, [deployment(other, [{ name: 'A', value: '1' }], { app: other })]);
    // Another actor adds a sidecar container and an annotation, as an admission webhook or a person would.
    await http.request({
      verb: 'patch',
      method: 'PATCH',
      path: `/apis/apps/v1/namespaces/default/deployments/${other}`,
      query: { fieldManager: 'someone-else' },
      contentType: 'application/strategic-merge-patch+json',
      body: {
        metadata: { annotations: { 'example.com/owner': 'team-a' } },
        spec: {
          template: { spec: { containers: [{ name: 'sidecar', image: 'registry.example/proxy:1' }] } },
        },
      },
    });
    await apply(t, [deployment(other, [{ name: 'A', value: '2' }], { app: other })]);
    const live = await get(`/apis/apps/v1/namespaces/default/deployments/${other}`);
    expect(live).toHaveProperty(['metadata', 'annotations', 'example.com/owner'], 'team-a');
    expect(live).toHaveProperty('spec.template.spec.containers.length', 2);
    expect(live).toHaveProperty(
      'spec.template.spec.containers',
      expect.arrayContaining([
        expect.objectContaining({ name: 'app', env: [{ name: 'A', value: '2' }] }),
        expect.objectContaining({ name: 'sidecar' }),
      ]),
    );
  });
});

describe('server-side apply conflicts', () => {
  it('reports the conflicting field and manager, and force takes the field over', async () => {
    const t = await target(SSA);
    await apply(t, [deployment('conflict', [], { app: 'conflict' })]);
    await http.request({
      verb: 'patch',
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/default/deployments/conflict',
      query: { fieldManager: 'autoscaler', force: true },
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'conflict', namespace: 'default' },
        spec: { replicas: 5 },
      },
    });
    const manifest = {
      ...deployment('conflict', [], { app: 'conflict' }),
      spec: {
        ...deployment('conflict', [], {}).spec,
        replicas: 2,
        selector: { matchLabels: { app: 'conflict' } },
      },
    };
    const refused = apply(t, [manifest]);
    await expect(refused).rejects.toThrow(ApplyConflictError);
    await expect(refused).rejects.toThrow(/\.spec\.replicas \(owned by autoscaler\).*apply with force/);
    await apply(t, [manifest], true);
    expect(await get('/apis/apps/v1/namespaces/default/deployments/conflict')).toHaveProperty(
      'spec.replicas',
      2,
    );
  });

  it('clearManagedFields leaves the agent as the only manager', async () => {
    const t = await target(`${SSA}    clearManagedFields: always\n`);
    await http.request({
      verb: 'create',
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      query: { fieldManager: 'kubectl-create' },
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cleared', namespace: 'default' },
        data: { a: '1', b: '2' },
      },
    });
    await apply(t, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cleared', namespace: 'default' },
        data: { a: '9' },
      },
    ]);
    const live = await get('/api/v1/namespaces/default/configmaps/cleared');
    expect(live).toHaveProperty('data', { a: '9', b: '2' });
    expect(managers(live)).toEqual(['orch-agent']);
  });

  it('manifestDefaults makes the agent own the defaulted fields', async () => {
    const t = await target(`${SSA}    manifestDefaults: always\n`);
    await apply(t, [deployment('defaults', [], { app: 'defaults' })]);
    const live = await get('/apis/apps/v1/namespaces/default/deployments/defaults');
    const ours = managedFields(live).find((e) => e.manager === 'orch-agent' && e.operation === 'Apply');
    for (const field of ['f:revisionHistoryLimit', 'f:strategy', 'f:progressDeadlineSeconds']) {
      expect(ours).toHaveProperty(['fieldsV1', 'f:spec', field]);
    }
    expect(live).toHaveProperty('spec.revisionHistoryLimit', 10);
  });
});

describe('deploy ordering and custom resources', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  };
  const widget = (spec: Record<string, unknown>) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'shop' },
    spec,
  });

  it('creates the namespace and the CRD before the custom resource listed first', async () => {
    const t = await target();
    const applied = await apply(t, [
      widget({ size: 3, colour: 'red' }),
      crd,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    ]);
    expect(applied.map((a) => a.kind)).toEqual(['Namespace', 'CustomResourceDefinition', 'Widget']);
    await apply(t, [widget({ size: 3 })]);
    expect(await get('/apis/example.com/v1/namespaces/shop/widgets/w')).toHaveProperty('spec', { size: 3 });
  });
});

describe('a deploy writes in phases, each phase at once', () => {
  /** The account's KubeHttp, recording when each write starts and ends. */
  class RecordingHttp extends KubeHttp {
    readonly log: string[] = [];
    inFlight = 0;
    maxInFlight = 0;
    override async request(request: KubeRequest): Promise<KubeResponse> {
      if (request.method === 'GET') return super.request(request);
      const name = request.path.split('/').at(-1);
      this.log.push(`start ${name}`);
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      try {
        return await super.request(request);
      } finally {
        this.inFlight--;
        this.log.push(`end ${name}`);
      }
    }
  }
  const recording = async () => {
    const resolved = resolveKubeConfig((await accountConfig('')).config.orchestrator.accounts[0]!, {
      env: {},
      noProxy: false,
    });
    const recorder = new RecordingHttp(resolved.kubeConfig, resolved.server);
    const t = await target(SSA);
    return { recorder, t: { ...t, http: recorder, resources: new ClusterResources(recorder) } };
  };
  const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'runs' },
    data,
  });
  const secret = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'runs' },
    stringData: { k: 'v' },
  });
  const service = (name: string, namespace = 'runs') => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports: [{ port: 80 }] },
  });
  beforeAll(async () => {
    await apply(await target(SSA), [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'runs' } }]);
  });

  it('writes what others name at once, then the rest at once, and reports the given order', async () => {
    const { recorder, t } = await recording();
    const applied = await apply(t, [
      service('v1'),
      configMap('c1'),
      secret('s1'),
      configMap('c2'),
      service('v2'),
    ]);
    expect(applied.map((a) => a.name)).toEqual(['v1', 'c1', 's1', 'c2', 'v2']);
    expect(recorder.maxInFlight).toBe(3);
    const at = (entry: string) => recorder.log.indexOf(entry);
    for (const early of ['c1', 's1', 'c2']) {
      for (const late of ['v1', 'v2']) expect(at(`end ${early}`)).toBeLessThan(at(`start ${late}`));
    }
    expect(Math.max(at('start v1'), at('start v2'))).toBeLessThan(Math.min(at('end v1'), at('end v2')));
  });

  it('admits a Pod listed before its ServiceAccount and its new Namespace, in one deploy', async () => {
    // The API server refuses a Pod whose ServiceAccount does not exist yet: the account's write ends
    // before the Pod's starts.
    const namespace = `phases-${Date.now().toString(36)}`;
    const { recorder, t } = await recording();
    const applied = await apply(t, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'runner-pod', namespace },
        spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'registry.example/c:1' }] },
      },
      service('runner-svc', namespace),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner', namespace } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    ]);
    expect(applied.map((a) => a.kind)).toEqual(['Namespace', 'Pod', 'Service', 'ServiceAccount']);
    const at = (entry: string) => recorder.log.indexOf(entry);
    expect(at(`end ${namespace}`)).toBeLessThan(at('start runner'));
    expect(at('end runner')).toBeLessThan(at('start runner-pod'));
    expect(await get(`/api/v1/namespaces/${namespace}/pods/runner-pod`)).toHaveProperty(
      'spec.serviceAccountName',
      'runner',
    );
  });

  it('writes a name given twice one after the other, so the later manifest wins', async () => {
    const { recorder, t } = await recording();
    await apply(t, [configMap('twice', { v: 'first' }), configMap('twice', { v: 'second' })]);
    expect(recorder.maxInFlight).toBe(1);
    expect(await get('/api/v1/namespaces/runs/configmaps/twice')).toHaveProperty('data', { v: 'second' });
  });

  it('a failed write: the rest of its phase is written, the phases after it are not, and the error is the failed one', async () => {
    const { t } = await recording();
    const failed = apply(t, [
      configMap('before-bad'),
      configMap('Not_A_Name'),
      configMap('after-bad'),
      service('never'),
    ]);
    await expect(failed).rejects.toThrow(KubeApiError);
    await expect(failed).rejects.toThrow('Not_A_Name');
    expect(await get('/api/v1/namespaces/runs/configmaps/before-bad')).toHaveProperty('data', { a: '1' });
    expect(await get('/api/v1/namespaces/runs/configmaps/after-bad')).toHaveProperty('data', { a: '1' });
    await expect(get('/api/v1/namespaces/runs/services/never')).rejects.toMatchObject({ status: 404 });
  });
});

describe('bad input', () => {
  it('names the bad field of an invalid manifest and applies nothing', async () => {
    const t = await target();
    const bad = apply(t, [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    ]);
    await expect(bad).rejects.toThrow(InvalidManifestError);
    await expect(bad).rejects.toThrow('manifests[1].metadata.name');
    await expect(
      http.request({ verb: 'get', method: 'GET', path: '/api/v1/namespaces/default/configmaps/fine' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('refuses an unknown kind', async () => {
    await expect(
      apply(await target(), [{ apiVersion: 'example.com/v9', kind: 'Gadget', metadata: { name: 'g' } }]),
    ).rejects.toThrow(UnknownKindError);
  });

  it('reports a missing namespace as the API server says it', async () => {
    const missing = apply(await target(), [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'nowhere' }, data: {} },
    ]);
    await expect(missing).rejects.toThrow(KubeApiError);
    await expect(missing).rejects.toThrow('namespaces "nowhere" not found');
  });
});

describe('placement: the default namespace and the account namespaces', () => {
  it("puts a namespaced manifest without a namespace in the account's default namespace", async () => {
    const t = { ...(await target()), defaultNamespace: 'kube-public' };
    const [applied] = await apply(t, [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'placed-by-default' }, data: { a: '1' } },
    ]);
    expect(applied).toMatchObject({ namespace: 'kube-public', name: 'placed-by-default' });
    expect(await get('/api/v1/namespaces/kube-public/configmaps/placed-by-default')).toHaveProperty('data', {
      a: '1',
    });
  });

  it("refuses a namespace outside the account's list, and one it omits, before writing anything", async () => {
    const listed = await target('');
    const t = {
      ...listed,
      account: { ...listed.account, namespaces: ['default'], omitNamespaces: ['kube-system'] },
    };
    const outside = apply(t, [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first-ok', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere', namespace: 'kube-public' } },
    ]);
    await expect(outside).rejects.toThrow(InvalidManifestError);
    await expect(outside).rejects.toThrow(
      "manifests[1].metadata.namespace: namespace 'kube-public' is not one of account test's namespaces (wrongNamespace)",
    );
    await expect(get('/api/v1/namespaces/default/configmaps/first-ok')).rejects.toMatchObject({
      status: 404,
    });
    const omitted = { ...t, account: { ...t.account, namespaces: [] } };
    await expect(
      apply(omitted, [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kube-system' } },
      ]),
    ).rejects.toThrow("namespace 'kube-system' is not one of account test's namespaces");
  });
});

describe("Spinnaker's strategy annotations", () => {
  const configMap = (name: string, annotations: Record<string, string>, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', annotations },
    data,
  });

  it('server-side-apply: true applies server-side, false client-side, where the settings allow', async () => {
    const t = await target('');
    await apply(t, [
      configMap('ssa-true', { 'strategy.spinnaker.io/server-side-apply': 'true' }, { a: '1' }),
    ]);
    await apply(t, [
      configMap('ssa-false', { 'strategy.spinnaker.io/server-side-apply': 'false' }, { a: '1' }),
    ]);
    const ssa = await get('/api/v1/namespaces/default/configmaps/ssa-true');
    expect(managedFields(ssa).map((e) => [e.manager, e.operation])).toEqual([['orch-agent', 'Apply']]);
    const csa = await get('/api/v1/namespaces/default/configmaps/ssa-false');
    expect(csa).toHaveProperty([
      'metadata',
      'annotations',
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
    expect(managedFields(csa).some((e) => e.operation === 'Apply')).toBe(false);
  });

  it('server-side-apply: force-conflicts takes over a field another manager owns', async () => {
    const t = await target('');
    const annotations = { 'strategy.spinnaker.io/server-side-apply': 'force-conflicts' };
    await apply(t, [configMap('ssa-force', annotations, { a: '1' })]);
    await http.request({
      verb: 'patch',
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/ssa-force',
      query: { fieldManager: 'someone-else', force: true },
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-force' }, data: { a: '2' } },
    });
    await apply(t, [configMap('ssa-force', annotations, { a: '3' })]);
    expect(await get('/api/v1/namespaces/default/configmaps/ssa-force')).toHaveProperty('data.a', '3');
  });

  it('replace writes the object whole: a key dropped from the manifest is gone, the uid stays', async () => {
    const t = await target('');
    const annotations = { 'strategy.spinnaker.io/replace': 'true' };
    await apply(t, [configMap('replaced', annotations, { a: '1', b: '2' })]);
    const before = await get('/api/v1/namespaces/default/configmaps/replaced');
    await apply(t, [configMap('replaced', annotations, { a: '9' })]);
    const after = await get('/api/v1/namespaces/default/configmaps/replaced');
    expect(after).toHaveProperty('data', { a: '9' });
    expect(after).toHaveProperty('metadata.uid', (before as { metadata: { uid: string } }).metadata.uid);
    expect(after).not.toHaveProperty([
      'metadata',
      'annotations',
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
  });

  it('recreate deletes the object and creates it again: a new uid', async () => {
    const t = await target('');
    const annotations = { 'strategy.spinnaker.io/recreate': 'true' };
    await apply(t, [configMap('recreated', annotations, { a: '1' })]);
    const before = await get('/api/v1/namespaces/default/configmaps/recreated');
    await apply(t, [configMap('recreated', annotations, { a: '2' })]);
    const after = await get('/api/v1/namespaces/default/configmaps/recreated');
    expect(after).toHaveProperty('data', { a: '2' });
    expect(after).not.toHaveProperty('metadata.uid', (before as { metadata: { uid: string } }).metadata.uid);
  });
});
