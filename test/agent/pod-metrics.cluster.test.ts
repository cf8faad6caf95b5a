import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../cloudctl/harness.ts';
import { sharedCluster } from '../cluster/index.ts';
import { startInProcessAgent } from './in-process-agent.ts';

const planes: TestControlPlane[] = [];
afterAll(async () => {
  for (const cp of planes) await cp.close();
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
  // The shared cluster serves no metrics API (metrics-server runs only in clusters started with
  // `metrics: true`). Metrics sent and shown when it is served: test/cloudctl/read-model/
  // pod-metrics.cluster.test.ts, against a real metrics-server.
  it('says once that the metrics API is not served, and carries on watching', async () => {
    const agent = await agentWithMetrics(sharedCluster().kubeconfigPath);
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
});
