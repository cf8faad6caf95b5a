// The HTTP API under schemathesis on a populated system: `cloudctl serve` and `orch-agent run` as
// processes on the shared cluster, one account with a Deployment (kwok runs its pods), a Service, a
// NetworkPolicy, a ConfigMap and a Job, a task that deployed part of it, and a deployment of the
// deployment service. fuzz.test.ts sees an empty system ([], 404, 400); here path parameters are
// bound to the names that exist, so the read model, tasks, deployments, accounts and caches answer
// with data, and every answer is checked against the document with every check on.
//
// Positive phase, GET operations only: generated writes (deploys and deletes of random manifests,
// account edits) would change what the reads are meant to see, and are fuzzed on the empty system.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import {
  expectEveryOperationTested,
  expectSchemathesis,
  runArguments,
  runSchemathesis,
  settingsFor,
} from './schemathesis-run.ts';

const NS = 'fuzz-populated';
const ACCOUNT = 'fuzz-populated';
const APPLICATION = 'fuzzshop';
const TOKENS = { agent: 'agent-token-fuzz-pop-3d1e', user: 'user-token-fuzz-pop-8a2c' };
const FUZZ_SECONDS = 60;
const SEED = 20261126;
const MONIKER = { 'moniker.spinnaker.io/application': APPLICATION };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let api: ApiClient;
/** Names that exist, bound to the document's path parameters. */
let bound: Record<string, string>;
let perOperation: Array<[string, Record<string, string>]>;

async function create(path: string, body: Record<string, unknown>): Promise<void> {
  const created = await cluster.request('POST', path, { body });
  if (created.status !== 201) throw new Error(`create ${path}: ${created.status} ${created.text}`);
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'registry.example/web:1' }] },
    },
  },
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-fuzz-populated-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'fuzz-populated-agent', token: TOKENS.agent },
    users: [{ name: 'pat', token: TOKENS.user, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'pod', 'service', 'networkPolicy', 'configMap', 'job'],
      read: ['ops'],
      write: ['ops'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await create(`/api/v1/namespaces/${NS}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', annotations: MONIKER },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
  });
  await create(`/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'web-only', annotations: MONIKER },
    spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
  });
  await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', annotations: MONIKER },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'migrate', image: 'registry.example/migrate:1' }],
        },
      },
    },
  });
  await system.startAgent();
  api = apiClient(system.url, TOKENS.user);

  // A task: the Deployment and a ConfigMap through POST /ops, as a client deploys.
  const started = await api.post('/ops?clientRequestId=fuzz-populated-1', [
    {
      deployManifest: {
        account: ACCOUNT,
        moniker: { app: APPLICATION },
        manifests: [
          deployment,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'settings', namespace: NS },
            data: { a: '1' },
          },
        ],
      },
    },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  await vi.waitFor(
    async () => expect((await api.get(`/task/${started.body.id}`)).body.status.completed).toBe(true),
    { timeout: 60_000, interval: 250 },
  );
  // A deployment of the deployment service: one target, one ConfigMap, no gates.
  const deployed = await api.post('/deployments', {
    file: [
      `application: ${APPLICATION}`,
      'targets:',
      `  fuzz: {account: ${ACCOUNT}, namespace: ${NS}, strategy: straight}`,
      'strategies:',
      '  straight: {canary: {steps: [{setWeight: {weight: 100}}]}}',
      'manifests:',
      '  - inline: |',
      '      apiVersion: v1',
      '      kind: ConfigMap',
      '      metadata: {name: released}',
      '      data: {version: "1"}',
      '',
    ].join('\n'),
  });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(202);
  await vi.waitFor(
    async () => expect((await api.get(`/deployments/${deployed.body.id}`)).body.status).toBe('SUCCEEDED'),
    { timeout: 60_000, interval: 250 },
  );
  // The read model shows the ReplicaSet with its two pods.
  const serverGroup = await vi.waitFor(
    async () => {
      const groups = (await api.get(`/applications/${APPLICATION}/serverGroups?expand=true`)).body as Array<{
        name: string;
        instances: unknown[];
      }>;
      const found = groups.find((g) => g.name.startsWith('replicaSet web-') && g.instances.length === 2);
      expect(found, JSON.stringify(groups.map((g) => [g.name, g.instances.length]))).toBeDefined();
      return found?.name ?? '';
    },
    { timeout: 60_000, interval: 250 },
  );
  const instances = (
    await api.get(
      `/applications/${APPLICATION}/serverGroups/${ACCOUNT}/${NS}/${encodeURIComponent(serverGroup)}`,
    )
  ).body as { instances: Array<{ name: string }> };
  bound = {
    application: APPLICATION,
    account: ACCOUNT,
    accountName: ACCOUNT,
    cloudProvider: 'orchestrator',
    provider: 'orchestrator',
    type: 'orchestrator',
    accountType: 'orchestrator',
    region: NS,
    location: NS,
    namespace: NS,
    clusterName: 'deployment web',
    cluster: 'deployment web',
    serverGroupName: serverGroup,
    name: serverGroup,
    loadBalancerName: 'service web',
    securityGroupNameOrId: 'networkPolicy web-only',
    instanceId: instances.instances[0]?.name ?? '',
    id: started.body.id,
    taskId: started.body.id,
    target: 'current_asg_dynamic',
    scope: NS,
  };
  /** Operations whose parameters of the same name mean another thing. */
  perOperation = [
    ['/applications/{application}/clusters/{account}/{name}', { 'path.name': 'deployment web' }],
    ['/applications/{application}/clusters/{account}/{name}/{type}', { 'path.name': 'deployment web' }],
    ['/applications/{application}/jobs/{account}/{location}/{id}', { 'path.id': 'job migrate' }],
    ['/instances/{account}/{region}/{id}', { 'path.id': instances.instances[0]?.name ?? '' }],
    ['/instances/{account}/{region}/{id}/console', { 'path.id': instances.instances[0]?.name ?? '' }],
    ['/cache/{cloudProvider}/{type}', { 'path.type': 'configMaps' }],
    ['/deployments/{id}', { 'path.id': deployed.body.id }],
  ];
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('the HTTP API under schemathesis, populated', () => {
  it('answers generated reads of real objects as its Swagger document says', {
    timeout: (FUZZ_SECONDS + 120) * 1000,
  }, async () => {
    expectSchemathesis();
    const toml = (values: Record<string, string>) =>
      Object.entries(values).map(
        ([k, v]) => `${JSON.stringify(k.includes('.') ? k : `path.${k}`)} = ${JSON.stringify(v)}`,
      );
    const settings = await settingsFor(
      system.url,
      dir,
      [
        ['[parameters]', ...toml(bound)].join('\n'),
        ...perOperation.map(([path, values]) =>
          [
            '[[operations]]',
            `include-path = ${JSON.stringify(path)}`,
            '[operations.parameters]',
            ...toml(values),
          ].join('\n'),
        ),
      ].join('\n\n'),
    );
    const run = await runSchemathesis(
      dir,
      runArguments({
        settings,
        url: system.url,
        token: TOKENS.user,
        maxExamples: 10,
        seconds: FUZZ_SECONDS,
        seed: SEED,
        extra: ['--include-method', 'GET', '--mode', 'positive'],
      }),
    );
    const report = `schemathesis ${run.output}\n--- cloudctl's log ---\n${system.cloudctl.output().slice(-20_000)}`;
    expectEveryOperationTested(run, report);
  });
});
