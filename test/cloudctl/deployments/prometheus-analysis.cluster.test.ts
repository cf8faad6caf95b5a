// Canary analysis by a Prometheus provider end to end: `cloudctl serve` configured with a provider
// (analysis.providers, its bearer token a file reference) and `orch-agent run` as processes on the
// shared real cluster, a real Prometheus (built from its Go module) scraping every second an exporter
// this test serves on 127.0.0.1. The exporter reports an error ratio per ReplicaSet of the test's
// namespace, read from the cluster at each scrape: 0.01 for an image tagged `good`, 0.3 for `bad`. A
// good canary passes both judgments and is promoted; a bad one fails saying the query, the value and
// the limit, stays at its weight (rule 4: analysis failure → manual rollback) and the rollback,
// asked for, restores the old version. A file naming a provider cloudctl lacks is refused with the
// configured names.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type PrometheusServer, startPrometheus } from '../../cluster/prometheus.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { analysisOf, replicasOf, untilDeployment } from './deployment-progress.ts';
import { type MetricExporter, serveMetrics } from './metric-exporter.ts';
import { potatoManifests } from './potato-app.ts';

const NS = 'prom-analysis-e2e';
const TOKENS = { agent: 'agent-token-prom-5c2e', ops: 'ops-token-prom-91ad' };
const QUERY = 'potato_error_ratio{replicaset="{{vendor.replicaSetName}}"}';

let dir: string;
let cluster: ClusterClient;
let exporter: MetricExporter;
let prometheus: PrometheusServer;
let system: TestSystem;
let ops: ApiClient;

const replicaSetList = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string() }),
      spec: z.object({
        template: z.object({ spec: z.object({ containers: z.array(z.object({ image: z.string() })) }) }),
      }),
    }),
  ),
});

/** Each ReplicaSet's error ratio, as its image's tag says. */
async function errorRatios() {
  const answer = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets`);
  return replicaSetList.parse(answer.json).items.map((rs) => ({
    metric: 'potato_error_ratio',
    labels: { replicaset: rs.metadata.name },
    value: rs.spec.template.spec.containers[0]?.image.endsWith('-bad') ? 0.3 : 0.01,
  }));
}

function deploymentFile(image: string, provider = 'prom'): string {
  return `version: v1
kind: kubernetes
application: potato
targets:
  staging:
    account: ${NS}
    namespace: ${NS}
    strategy: analyzed-canary
analysis:
  defaultMetricProviderName: ${provider}
  queries:
    - name: errorRate
      queryTemplate: '${QUERY}'
      upperLimit: 0.05
strategies:
  analyzed-canary:
    canary:
      steps:
        - setWeight: {weight: 50}
        - analysis:
            interval: 3
            units: seconds
            numberOfJudgmentRuns: 2
            queries: [errorRate]
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
}

async function submit(image: string): Promise<string> {
  const answer = await ops.post('/deployments', { file: deploymentFile(image), fileName: 'potato.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return z.object({ id: z.string() }).parse(answer.body).id;
}

const until = (id: string, what: string, done: Parameters<typeof untilDeployment>[3]) =>
  untilDeployment(ops, id, what, done);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-prom-analysis-e2e-'));
  cluster = sharedClusterClient();
  exporter = await serveMetrics(errorRatios);
  prometheus = await startPrometheus({ dir, targets: [exporter.target] });
  const tokenFile = join(dir, 'prom-token');
  await writeFile(tokenFile, 'prom-bearer-7d0c\n', { mode: 0o600 });
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'prom-analysis-agent', token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: NS,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['replicaSet', 'service'],
      read: ['ops'],
      write: ['ops'],
    },
    config: `analysis:
  providers:
    - name: prom
      type: prometheus
      baseUrl: ${prometheus.url}
      bearerToken: encrypted:file!f:${tokenFile}
      timeoutSeconds: 5`,
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
  await prometheus.scraped(60_000);
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await prometheus?.stop();
  await exporter?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('canary analysis by a Prometheus provider', () => {
  it('refuses a file naming a provider cloudctl does not have, listing the configured ones', async () => {
    const answer = await ops.post('/deployments', {
      file: deploymentFile('potato:1-good', 'prom-prod'),
      fileName: 'potato.yaml',
    });
    expect(answer.status).toBe(400);
    expect(z.object({ message: z.string() }).parse(answer.body).message).toContain(
      "potato.yaml:10:30: error: analysis.defaultMetricProviderName: unknown metric provider 'prom-prod' (cloudctl's config, analysis.providers, defines prom; 'builtin' is always there)",
    );
  });

  it('passes a canary whose error ratio stays under the limit on every judgment, and promotes it', async () => {
    const first = await submit('potato:1-good');
    expect((await until(first, 'the first version', (v) => v.status !== 'RUNNING')).status).toBe('SUCCEEDED');

    const id = await submit('potato:2-good');
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done.targets[0])).toBe('SUCCEEDED');
    expect(analysisOf(done)).toMatchObject({
      status: 'SUCCEEDED',
      message: 'analysis passed 2 of 2 judgments: errorRate 0.01 ≤ 0.05',
    });
    expect(done.log.map((l) => l.message)).toContain(
      'analysis judgment 1 of 2 passed: errorRate 0.01 ≤ 0.05',
    );
  });

  it('fails a canary whose error ratio is over the limit, saying why, and leaves the rollback to a person', async () => {
    const id = await submit('potato:3-bad');
    const failed = await until(id, 'the failed analysis', (v) => v.status !== 'RUNNING');
    const workload = failed.targets[0]?.workloads?.[0];
    if (workload === undefined) throw new Error('no workload');
    expect(failed.status).toBe('FAILED');
    const step = analysisOf(failed);
    expect(step.status).toBe('FAILED');
    const reason = new RegExp(
      `^analysis failed at judgment 1 of 2: errorRate 0\\.3 > upperLimit 0\\.05 \\(prom: potato_error_ratio\\{replicaset="${workload.replicaSet}"\\}, mean of \\d+ samples?\\)`,
    );
    expect(step.message).toMatch(reason);
    expect(step.message).toContain(`POST /deployments/${id}/rollback`);
    expect(failed.log.map((l) => l.message).some((m) => reason.test(m))).toBe(true);
    // Not rolled back by itself: the canary still runs at its weight beside the old version.
    const old = workload.previous[0]?.name ?? '';
    expect(await replicasOf(cluster, NS, workload.replicaSet)).toBe(1);
    expect(await replicasOf(cluster, NS, old)).toBe(1);

    expect((await ops.post(`/deployments/${id}/rollback`)).status).toBe(202);
    const rolledBack = await until(id, 'the asked rollback', (v) => v.status !== 'RUNNING');
    expect(rolledBack.status).toBe('ROLLED_BACK');
    expect(await replicasOf(cluster, NS, workload.replicaSet)).toBe(0);
    expect(await replicasOf(cluster, NS, old)).toBe(2);
  });
});
