// Pod logs as users meet them, end to end: `cloudctl serve` and `orch-agent run` as processes, and
// pods on the shared cluster's fake-kubelet node, whose containers "print" what this file writes on
// them (test/cluster/fake-kubelet.ts). An instance's console, a Job's result properties and runJob's
// captured log are each asserted as the literal text, so every step between the kubelet and the HTTP
// answer (the API server, the agent's read, cloudctl's route) has to carry it unchanged.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ApiClient as ClusterClient,
  podLogAnnotations,
  sharedCluster,
  sharedClusterClient,
} from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const NS = 'pod-logs-e2e';
const ACCOUNT = 'pod-logs-e2e';
const TOKENS = { agent: 'agent-token-logs-e2e-4be1', dev: 'dev-token-logs-e2e-c07a' };
const SHOP = { 'moniker.spinnaker.io/application': 'shop' };

const WEB_LOG = '2026-11-26 listening on :8080\nGET /healthz 200 1ms\nGET / 200 \u00e9t\u00e9 4ms\n';
const SIDECAR_LOG = 'proxy ready\nupstream 127.0.0.1:8080 healthy\n';
const MIGRATE_LOG = [
  'starting migration',
  'SPINNAKER_PROPERTY_VERSION=1.2.3',
  '  SPINNAKER_PROPERTY_ROWS = 10  ',
  'SPINNAKER_PROPERTY_URL=https://db.example/?a=b',
  'SPINNAKER_CONFIG_JSON={"rows": 12, "tables": ["users", "orders"], "dryRun": false}',
  'migration done',
  '',
].join('\n');

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let dev: ApiClient;

const enc = encodeURIComponent;
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 25_000, interval: 250 });

/** A pod template on the fake kubelet's node whose containers print `logs`. */
function podTemplate(labels: Record<string, string>, logs: Record<string, string>, restartPolicy?: string) {
  return {
    metadata: { labels, annotations: podLogAnnotations(logs) },
    spec: {
      nodeName: sharedCluster().fakeKubelet.nodeName,
      ...(restartPolicy === undefined ? {} : { restartPolicy }),
      containers: Object.keys(logs).map((name) => ({ name, image: `registry.example/${name}:1` })),
    },
  };
}

async function create(path: string, body: Record<string, unknown>) {
  const created = await cluster.request('POST', path, { body });
  if (created.status !== 201) throw new Error(`create ${path}: ${created.status} ${created.text}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-logs-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'logs-e2e-agent', token: TOKENS.agent },
    users: [{ name: 'dave', token: TOKENS.dev, roles: ['dev'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'pod', 'job'],
      read: ['dev'],
      write: ['dev'],
    },
  });
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await create(`/apis/apps/v1/namespaces/${NS}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', annotations: SHOP },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate({ app: 'web' }, { web: WEB_LOG, sidecar: SIDECAR_LOG }),
    },
  });
  await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', annotations: SHOP },
    spec: { template: podTemplate({}, { m: MIGRATE_LOG }, 'Never') },
  });
  await system.startAgent();
  dev = apiClient(system.url, TOKENS.dev);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('pod logs through cloudctl and the agent', () => {
  it("shows an instance's console: each container's log exactly as it printed it, in spec order", async () => {
    const listed = await cluster.get(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`);
    const pod = `pod ${(listed.json as { items: Array<{ metadata: { name: string } }> }).items[0]?.metadata.name}`;
    await eventually(async () => {
      expect((await dev.get(`/instances/${ACCOUNT}/${NS}/${enc(pod)}`)).body).toMatchObject({
        healthState: 'Up',
      });
    });
    const console = await dev.get(`/instances/${ACCOUNT}/${NS}/${enc(pod)}/console`);
    expect(console.status).toBe(200);
    expect(console.body).toEqual({
      output: [
        { name: 'web', output: WEB_LOG },
        { name: 'sidecar', output: SIDECAR_LOG },
      ],
    });
  });

  it("reads a Job's result properties from its log as Spinnaker parses them", async () => {
    const path = `/applications/shop/jobs/${ACCOUNT}/${NS}/${enc('job migrate')}`;
    await eventually(async () => {
      expect((await dev.get(path)).body).toMatchObject({ jobState: 'Succeeded' });
      // The route reads the Job's pod from the index, which may trail the Job by an event.
      expect((await dev.get(`${path}/m`)).status).toBe(200);
    });
    // Spinnaker trims each line and the parts around "="; a line with a second "=" publishes nothing;
    // the JSON line's members join in, later lines winning.
    expect((await dev.get(`${path}/m`)).body).toEqual({
      version: '1.2.3',
      rows: 12,
      tables: ['users', 'orders'],
      dryRun: false,
    });
  });

  it("returns runJob's captured log in the task's result", async () => {
    const started = await dev.post('/ops/runJob', {
      account: ACCOUNT,
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { generateName: 'report-', namespace: NS },
        spec: { template: podTemplate({}, { report: 'rows: 12\nok\n' }, 'Never') },
      },
    });
    expect(started.status).toBe(200);
    const task = await taskDone(dev, started.body.id, 60_000);
    expect(task.status.failed).toBe(false);
    expect(task.resultObjects[0]).toMatchObject({
      jobOutcome: 'Complete',
      pods: [{ phase: 'Succeeded', logs: { report: 'rows: 12\nok\n' } }],
    });
    expect(task.resultObjects[0].pods[0]).not.toHaveProperty('logErrors');
  });
});
