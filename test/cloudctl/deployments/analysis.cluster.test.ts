// Canary analysis end to end, as the issue asks it to be seen: `cloudctl serve` and `orch-agent run`
// as processes on the shared real cluster, a deployment file in the original product's shape with an
// `analysis` section and a canary `analysis` step judged by the built-in provider. A healthy canary
// passes every judgment and is promoted; a canary whose container crash-loops (its pod's status made
// so, as a kubelet would write it: kwok runs no containers) fails with the measure, its value, the
// limit and the pod named, is NOT rolled back by itself (rule 4: analysis failure → manual), and the
// deployment's rollback, asked for, restores the old version. In blue/green `redirectTrafficAfter`, a
// failed analysis stops the check beside it; the active Service is not switched and nothing rolls back.
// Pods are listed through the agent, so the account watches no more kinds than a plain deployment's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { analysisOf, type DeploymentRecord, replicasOf, untilDeployment } from './deployment-progress.ts';
import { potatoManifests } from './potato-app.ts';

const NS = 'analysis-e2e';
const ACCOUNT = 'analysis-e2e';
const TOKENS = { agent: 'agent-token-analysis-3d1f', ops: 'ops-token-analysis-8b20' };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;

function deploymentFile(
  image: string,
  strategy: 'analyzed-canary' | 'analyzed-blue-green' = 'analyzed-canary',
): string {
  return `version: v1
kind: kubernetes
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: ${strategy}
analysis:
  defaultMetricProviderName: builtin
  queries:
    - name: noCrashLoops
      queryTemplate: crashLoops
      upperLimit: 0
strategies:
  analyzed-canary:
    canary:
      steps:
        - setWeight: {weight: 50}
        - analysis:
            interval: 3
            units: seconds
            numberOfJudgmentRuns: 2
            rollBackMode: manual
            queries: [noCrashLoops, restarts, readyRatio]
  analyzed-blue-green:
    blueGreen:
      activeService: potato
      redirectTrafficAfter:
        - analysis:
            interval: 3
            units: seconds
            numberOfJudgmentRuns: 2
            queries: [crashLoops]
        - pause: {duration: 1, unit: minutes}
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
}

async function submit(image: string, strategy?: Parameters<typeof deploymentFile>[1]): Promise<string> {
  const answer = await ops.post('/deployments', {
    file: deploymentFile(image, strategy),
    fileName: 'potato.yaml',
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.id as string;
}

const replicas = (name: string) => replicasOf(cluster, NS, name);
const until = (id: string, what: string, done: (v: DeploymentRecord) => boolean) =>
  untilDeployment(ops, id, what, done);

const podListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string() }),
      spec: z.object({ containers: z.array(z.object({ name: z.string(), image: z.string() })) }),
    }),
  ),
});

/** What a kubelet writes of a container that keeps dying: CrashLoopBackOff after 5 restarts. */
async function crashLoop(version: string): Promise<string[]> {
  const list = await cluster.request(
    'GET',
    `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(`deploy.vendor.io/version=${version}`)}`,
  );
  const { items } = podListSchema.parse(list.json);
  for (const pod of items) {
    const patched = await cluster.request(
      'PATCH',
      `/api/v1/namespaces/${NS}/pods/${pod.metadata.name}/status`,
      {
        contentType: 'application/merge-patch+json',
        body: {
          status: {
            containerStatuses: pod.spec.containers.map((c) => ({
              name: c.name,
              image: c.image,
              imageID: '',
              ready: false,
              restartCount: 5,
              started: false,
              state: {
                waiting: {
                  reason: 'CrashLoopBackOff',
                  message: 'back-off 2m40s restarting failed container',
                },
              },
              lastState: { terminated: { exitCode: 1, reason: 'Error' } },
            })),
          },
        },
      },
    );
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
  }
  return items.map((p) => p.metadata.name);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-analysis-e2e-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'analysis-agent', token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['replicaSet', 'service'],
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

describe('canary analysis by the built-in provider', () => {
  it('passes a healthy canary on every judgment and promotes it', async () => {
    const first = await submit('potato:1');
    expect((await until(first, 'the first version', (v) => v.status !== 'RUNNING')).status).toBe('SUCCEEDED');

    const id = await submit('potato:2');
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done.targets[0])).toBe('SUCCEEDED');
    expect(analysisOf(done)).toMatchObject({
      status: 'SUCCEEDED',
      message:
        'analysis passed 2 of 2 judgments: noCrashLoops (crashLoops) 0 ≤ 0, restarts 0 ≤ 2, readyRatio 1 ≥ 0.9',
    });
    expect(done.log.map((l) => l.message)).toContain(
      'analysis judgment 1 of 2 passed: noCrashLoops (crashLoops) 0 ≤ 0, restarts 0 ≤ 2, readyRatio 1 ≥ 0.9',
    );
  });

  it('fails a crash-looping canary saying why, and leaves the rollback to a person', async () => {
    const id = await submit('potato:3');
    const analyzing = await until(id, 'the analysis', (v) => analysisOf(v).status === 'RUNNING');
    const workload = analyzing.targets[0]?.workloads?.[0];
    if (workload === undefined) throw new Error('no workload');
    // The new ReplicaSet is `potato-<version>`; its pods carry that version as a label.
    const pods = await crashLoop(workload.replicaSet.slice('potato-'.length));
    expect(pods).toHaveLength(1);

    const failed = await until(id, 'the failed analysis', (v) => v.status !== 'RUNNING');
    const reason = `noCrashLoops (crashLoops) 1 > upperLimit 0 (${pods[0]}/web); restarts 5 > upperLimit 2 (${pods[0]}: 5)`;
    expect(failed.status).toBe('FAILED');
    expect(analysisOf(failed).status).toBe('FAILED');
    expect(analysisOf(failed).message).toContain(`analysis failed at judgment 1 of 2: ${reason}`);
    expect(analysisOf(failed).message).toContain(`POST /deployments/${id}/rollback`);
    expect(failed.targets[0]?.status).toBe('FAILED');
    expect(failed.log.map((l) => l.message)).toContain(`analysis failed at judgment 1 of 2: ${reason}`);
    expect(failed.log.map((l) => l.message).join('\n')).not.toMatch(/rolling back automatically/);
    // Not rolled back by itself: the canary still runs at its weight beside the old version.
    expect(await replicas(workload.replicaSet)).toBe(1);
    const old = workload.previous[0]?.name ?? '';
    expect(await replicas(old)).toBe(1);

    expect((await ops.post(`/deployments/${id}/rollback`)).status).toBe(202);
    const rolledBack = await until(id, 'the asked rollback', (v) => v.status !== 'RUNNING');
    expect(rolledBack.status).toBe('ROLLED_BACK');
    expect(await replicas(workload.replicaSet)).toBe(0);
    expect(await replicas(old)).toBe(2);
  });

  it('in blue/green redirectTrafficAfter, a failed analysis stops its parallel checks and leaves the switch and the rollback to a person', async () => {
    const id = await submit('potato:4', 'analyzed-blue-green');
    const analyzing = await until(id, 'the analysis', (v) => analysisOf(v).status === 'RUNNING');
    const workload = analyzing.targets[0]?.workloads?.[0];
    if (workload === undefined) throw new Error('no workload');
    const pods = await crashLoop(workload.replicaSet.slice('potato-'.length));
    expect(pods).toHaveLength(2);

    const failed = await until(id, 'the failed analysis', (v) => v.status !== 'RUNNING');
    expect(failed.status).toBe('FAILED');
    expect(analysisOf(failed).message).toMatch(
      /^analysis failed at judgment 1 of 2: crashLoops 2 > upperLimit 0 \(/,
    );
    const steps = failed.targets[0]?.steps ?? [];
    expect(steps.find((s) => s.key === 'staging/redirectTrafficAfter[1]')).toMatchObject({
      status: 'FAILED',
      message: 'not waited for any more: a step running beside it failed',
    });
    expect(steps.find((s) => s.kind === 'switchTraffic')?.status).toBe('SKIPPED');
    // The active Service was not switched, and the new version was not scaled away by itself.
    const service = await cluster.request('GET', `/api/v1/namespaces/${NS}/services/potato`);
    const selector = z
      .object({ spec: z.object({ selector: z.record(z.string(), z.string()) }) })
      .parse(service.json).spec.selector;
    expect(selector['deploy.vendor.io/version']).toBe(workload.previous[0]?.name.slice('potato-'.length));
    expect(await replicas(workload.replicaSet)).toBe(2);
  });
});
