import { beforeAll, describe, expect, it } from 'vitest';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { type ApplyTarget, applyManifests } from '../../../src/agent/operations/apply/apply-manifests.ts';
import { InvalidManifestError } from '../../../src/agent/operations/apply/manifest.ts';
import { ApplyConflictError } from '../../../src/agent/operations/apply/server-side-apply.ts';
import {
  ClusterResources,
  KubeApiError,
  KubeHttp,
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
