import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../cloudctl/harness.ts';
import { type Cluster, startCluster } from '../cluster/index.ts';
import { startInProcessAgent } from './in-process-agent.ts';

const planes: TestControlPlane[] = [];
const clusters: Cluster[] = [];
afterAll(async () => {
  for (const cp of planes) await cp.close();
  for (const c of clusters) await c.stop();
});

async function agentWithMetrics(kubeconfig: string) {
  const cp = await startTestControlPlane();
  planes.push(cp);
  const agent = await startInProcessAgent(
    `cloudctl:\n  grpc: ${cp.address}\n  insecure: true\n  auth:\n    token: ${AGENT_TOKEN}\norchestrator:\n  accounts:\n    - name: m\n      orchConfigFile: ${kubeconfig}\n      metrics: true\n      namespaces: [default]\n      kinds: [configMap]\n`,
  );
  const notices = () =>
    agent.logs.filter((l) => l.msg.includes('metrics API (metrics.k8s.io) is not served'));
  return { cp, notices, stop: () => agent.stop() };
}

async function until(probe: () => Promise<boolean> | boolean, what: string) {
  for (let i = 0; i < 200 && !(await probe()); i++) await sleep(50);
  if (!(await probe())) throw new Error(`timed out waiting for ${what}`);
}

describe('metrics: true', () => {
  it('says once that the metrics API is not served, and carries on watching', async () => {
    const cluster = await startCluster({ nodes: 1 });
    clusters.push(cluster);
    const agent = await agentWithMetrics(cluster.kubeconfigPath);
    try {
      await until(() => agent.notices().length > 0, 'the notice');
      await until(
        async () => (await agent.cp.plane.store.cache.resources('m', { kind: 'ConfigMap' })).length > 0,
        'watching to go on',
      );
      expect(agent.notices()).toHaveLength(1);
    } finally {
      await agent.stop();
    }
  });

  it('sends pod metrics as a snapshot when the metrics API is served', async () => {
    const cluster = await startCluster({ nodes: 1 });
    clusters.push(cluster);
    // No metrics-server here: the metrics.k8s.io group is served by a CRD of the same shape, which the
    // API server allows in a k8s.io group with an approval annotation.
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: 'pods.metrics.k8s.io',
        annotations: { 'api-approved.kubernetes.io': 'unapproved, test stand-in for metrics-server' },
      },
      spec: {
        group: 'metrics.k8s.io',
        scope: 'Namespaced',
        names: { kind: 'PodMetrics', plural: 'pods', singular: 'pod' },
        versions: [
          {
            name: 'v1beta1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await cluster.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: crd,
    });
    await until(
      async () => (await cluster.client.request('GET', '/apis/metrics.k8s.io/v1beta1')).status === 200,
      'the metrics group',
    );
    await cluster.client.request('POST', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', {
      body: {
        apiVersion: 'metrics.k8s.io/v1beta1',
        kind: 'PodMetrics',
        metadata: { name: 'web-1', namespace: 'default' },
        window: '30s',
        containers: [{ name: 'web', usage: { cpu: '12m', memory: '34Mi' } }],
      },
    });
    const agent = await agentWithMetrics(cluster.kubeconfigPath);
    try {
      await until(
        async () => (await agent.cp.plane.store.cache.resources('m', { kind: 'PodMetrics' })).length === 1,
        'pod metrics in the store',
      );
      const [metrics] = await agent.cp.plane.store.cache.resources('m', { kind: 'PodMetrics' });
      expect(metrics).toMatchObject({
        group: 'metrics.k8s.io',
        namespace: 'default',
        name: 'web-1',
        body: expect.objectContaining({
          containers: [{ name: 'web', usage: { cpu: '12m', memory: '34Mi' } }],
        }),
      });
      expect(agent.notices()).toEqual([]);
    } finally {
      await agent.stop();
    }
  });
});
