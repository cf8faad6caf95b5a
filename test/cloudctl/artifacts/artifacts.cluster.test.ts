// Artifacts as a Spinnaker pipeline hands them to a deploy, against a real cloudctl, agent and
// cluster: a required docker image and a versioned ConfigMap bound into a Deployment, manifests
// read from an embedded/base64 artifact, the task's boundArtifacts and createdArtifacts, the
// refusals that name what cloudctl cannot do, and the artifact accounts it lists.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const NS = 'artifacts-e2e';
const ACCOUNT = 'artifacts-e2e';
const TOKENS = { agent: 'agent-token-artifacts-5c1e', ops: 'ops-token-artifacts-90ad' };
const IMAGE = 'index.docker.io/library/alpine';

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;

function deployment(name: string, podSpec: Record<string, unknown>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  };
}

const dockerArtifact = (tag: string) => ({
  name: IMAGE,
  type: 'docker/image',
  reference: `${IMAGE}:${tag}`,
  version: tag,
  location: '',
  metadata: {},
  customKind: false,
});

async function podSpecInCluster(name: string) {
  const answer = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
  expect(answer.status).toBe(200);
  return (answer.json as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-artifacts-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'artifacts-agent', token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'pod', 'configMap'],
      read: ['ops'],
      write: ['ops'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a deploy with artifacts', () => {
  it('binds a required image and a versioned ConfigMap, and reports them in the task', async () => {
    // The versioned ConfigMap an earlier deploy made; the artifact names it by its unversioned name.
    const made = await cluster.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'checkout-settings-v005' },
        data: { a: '1' },
      },
    });
    expect(made.status).toBe(201);
    const configMapArtifact = {
      name: 'checkout-settings',
      type: 'kubernetes/configMap',
      reference: 'checkout-settings-v005',
      version: 'v005',
      location: NS,
      metadata: { account: ACCOUNT },
      customKind: false,
    };
    const started = await ops.post('/ops', [
      {
        deployManifest: {
          account: ACCOUNT,
          cloudProvider: 'orchestrator',
          source: 'text',
          moniker: { app: 'checkout' },
          skipExpressionEvaluation: false,
          requiredArtifacts: [dockerArtifact('3.20')],
          optionalArtifacts: [dockerArtifact('3.19'), configMapArtifact],
          manifests: [
            deployment('checkout', {
              initContainers: [{ name: 'wait', image: 'busybox:1.37' }],
              containers: [
                {
                  name: 'checkout',
                  image: IMAGE,
                  volumeMounts: [{ name: 'settings', mountPath: '/etc/checkout' }],
                },
              ],
              volumes: [{ name: 'settings', configMap: { name: 'checkout-settings' } }],
            }),
          ],
        },
      },
    ]);
    expect(started.status).toBe(200);
    const task = await taskDone(ops, started.body.id);
    expect(task.status).toMatchObject({ completed: true, failed: false });

    const podSpec = await podSpecInCluster('checkout');
    expect(podSpec.containers).toMatchObject([{ name: 'checkout', image: `${IMAGE}:3.20` }]);
    expect(podSpec.initContainers).toMatchObject([{ name: 'wait', image: 'busybox:1.37' }]);
    expect(podSpec.volumes).toMatchObject([
      { name: 'settings', configMap: { name: 'checkout-settings-v005' } },
    ]);

    const result = task.resultObjects[0];
    expect(result.boundArtifacts).toHaveLength(2);
    expect(result.boundArtifacts).toEqual(
      expect.arrayContaining([dockerArtifact('3.20'), configMapArtifact]),
    );
    expect(result.createdArtifacts).toEqual([
      {
        type: 'orchestrator/deployment',
        name: 'checkout',
        location: NS,
        version: '',
        reference: 'checkout',
        metadata: { account: ACCOUNT },
        customKind: false,
      },
    ]);
  });

  it('deploys the manifests of an embedded/base64 artifact, binding an optional image into them', async () => {
    const yaml = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: reports',
      `  namespace: ${NS}`,
      'spec:',
      '  replicas: 1',
      '  selector: {matchLabels: {app: reports}}',
      '  template:',
      '    metadata: {labels: {app: reports}}',
      '    spec:',
      '      containers:',
      `        - {name: reports, image: "${IMAGE}"}`,
      '',
    ].join('\n');
    const started = await ops.post('/ops/deployManifest', {
      account: ACCOUNT,
      source: 'artifact',
      moniker: { app: 'reports' },
      manifestArtifact: {
        type: 'embedded/base64',
        name: 'reports.yaml',
        reference: Buffer.from(yaml).toString('base64'),
        artifactAccount: 'embedded-artifact',
      },
      optionalArtifacts: [dockerArtifact('3.18')],
    });
    expect(started.status).toBe(200);
    const task = await taskDone(ops, started.body.id);
    expect(task.status.failed).toBe(false);
    expect((await podSpecInCluster('reports')).containers).toMatchObject([
      { name: 'reports', image: `${IMAGE}:3.18` },
    ]);
    expect(task.resultObjects[0].manifestNamesByNamespace).toEqual({ [NS]: ['deployment reports'] });
    expect(task.resultObjects[0].boundArtifacts).toEqual([dockerArtifact('3.18')]);
  });

  it('refuses what it cannot do, naming it, and deploys nothing', async () => {
    const github = await ops.post('/ops/deployManifest', {
      account: ACCOUNT,
      source: 'artifact',
      manifestArtifact: {
        type: 'github/file',
        name: 'deploy/web.yaml',
        reference: 'https://api.github.com/repos/o/r/contents/deploy/web.yaml',
      },
    });
    expect(github.status).toBe(400);
    expect(github.body.message).toContain('body.manifestArtifact.type');
    expect(github.body.message).toContain("'github/file'");

    const unbound = await ops.post('/ops/deployManifest', {
      account: ACCOUNT,
      requiredArtifacts: [
        { ...dockerArtifact('1'), name: 'registry.example/absent', reference: 'registry.example/absent:1' },
      ],
      manifests: [deployment('never', { containers: [{ name: 'c', image: IMAGE }] })],
    });
    expect(unbound.status).toBe(400);
    expect(unbound.body.message).toContain(
      'body.requiredArtifacts: could not be bound: docker/image registry.example/absent',
    );
    const never = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/never`);
    expect(never.status).toBe(404);
  });

  it('lists the embedded and orchestrator artifact accounts', async () => {
    const listed = await ops.get('/artifacts/credentials');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { name: 'embedded-artifact', type: 'artifacts-embedded', types: ['embedded/base64', 'remote/base64'] },
      {
        name: 'orchestrator',
        type: 'artifacts-orchestrator',
        types: [
          'orchestrator/configMap',
          'orchestrator/deployment',
          'orchestrator/replicaSet',
          'orchestrator/secret',
        ],
      },
    ]);
  });
});
