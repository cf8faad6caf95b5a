import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../../src/agent/main.ts';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../cloudctl/harness.ts';
import { freePort } from '../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { startInProcessAgent } from './in-process-agent.ts';

const NS = 'e2e-watch';
let cp: TestControlPlane;
let admin: ApiClient;
let runtime: AgentRuntime;
let stopAgent: () => Promise<void>;
let healthPort: number;

const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
  data,
});

async function cached(name: string) {
  const resources = await cp.plane.store.cache.resources('e2e', { kind: 'ConfigMap' });
  return resources.find((r) => r.namespace === NS && r.name === name);
}

/** Milliseconds until `probe` holds, polling every 20 ms; fails after `limitMs` * 5. */
async function msUntil(probe: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > limitMs * 5) throw new Error(`not within ${limitMs * 5} ms`);
    await sleep(20);
  }
  return performance.now() - started;
}

beforeAll(async () => {
  cp = await startTestControlPlane();
  admin = sharedClusterClient();
  await admin.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: configMap('before-start', { a: '1' }),
  });
  healthPort = await freePort();
  const agent = await startInProcessAgent(
    [
      'logging:\n  format: json\n  level: error',
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      `cloudctl:\n  grpc: ${cp.address}\n  insecure: true\n  auth:\n    token: ${AGENT_TOKEN}`,
      `orchestrator:\n  accounts:\n    - name: e2e\n      orchConfigFile: ${sharedCluster().kubeconfigPath}\n      namespaces: [${NS}]\n      kinds: [configMap]`,
    ].join('\n'),
  );
  stopAgent = () => agent.stop();
  runtime = agent.runtime;
});

afterAll(async () => {
  await stopAgent?.();
  await admin?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await admin?.close();
  await cp?.close();
});

describe('agent, control plane and cluster together', () => {
  it('becomes ready once connected and synced, with the pre-existing objects in the control plane', async () => {
    await msUntil(async () => (await fetch(`http://127.0.0.1:${healthPort}/ready`)).status === 200, 2000);
    expect(runtime.connection.state).toBe('connected');
    expect(await cached('before-start')).toMatchObject({
      resourceVersion: expect.any(String),
      body: expect.objectContaining({ data: { a: '1' } }),
    });
  });

  it('streams creates, updates and deletes to the control plane within a second', async () => {
    await admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: configMap('live', { v: '1' }),
    });
    const created = await msUntil(async () => (await cached('live')) !== undefined, 1000);
    await admin.request('PUT', `/api/v1/namespaces/${NS}/configmaps/live`, {
      body: configMap('live', { v: '2' }),
    });
    const updated = await msUntil(
      async () => JSON.stringify((await cached('live'))?.body).includes('"v":"2"'),
      1000,
    );
    await admin.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/live`);
    const deleted = await msUntil(async () => (await cached('live')) === undefined, 1000);
    for (const ms of [created, updated, deleted]) expect(ms).toBeLessThan(1000);
  });

  it('watches only the configured kinds and namespaces', async () => {
    const kinds = new Set(
      (await cp.plane.store.cache.resources('e2e')).map((r) => `${r.kind}/${r.namespace}`),
    );
    expect([...kinds]).toEqual([`ConfigMap/${NS}`]);
  });

  it('carries out an operation sent through the control plane and reports its result', async () => {
    const outcome = await cp.plane.operations.execute({
      account: 'e2e',
      type: 'deploy',
      payload: { manifests: [configMap('from-cloudctl', { x: 'y' })] },
    });
    expect(outcome).toMatchObject({
      outcome: 'succeeded',
      result: { applied: [expect.objectContaining({ name: 'from-cloudctl' })] },
    });
    await msUntil(async () => (await cached('from-cloudctl')) !== undefined, 1000);
  });

  it('reports a failed operation with its code', async () => {
    const outcome = await cp.plane.operations.execute({
      account: 'e2e',
      type: 'scale',
      payload: { kind: 'Deployment', namespace: NS, name: 'none', replicas: 1 },
    });
    expect(outcome).toMatchObject({
      outcome: 'failed',
      error: { code: 'NOT_FOUND', message: expect.stringContaining('"none" not found') },
    });
  });
});
