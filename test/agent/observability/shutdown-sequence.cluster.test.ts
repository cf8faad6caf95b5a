// A SIGTERM while an operation from the control plane cannot finish (a delete that waits for an
// object held by a finalizer) shows the documented shutdown sequence end to end: no new operations
// and /ready 503, the operation cut off at the deadline and reported to cloudctl as SHUTTING_DOWN,
// then the agent stops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type InProcessAgent, msUntil, startInProcessAgent, statusOf } from '../in-process-agent.ts';

const NS = 'obs-shutdown';
const HELD = 'held-by-finalizer';
const FINALIZER = 'orch-agent.test/hold';
const DEADLINE_MS = 1000;

let cp: TestControlPlane;
let admin: ApiClient;
let agent: InProcessAgent | undefined;
let healthPort: number;

beforeAll(async () => {
  cp = await startTestControlPlane();
  admin = sharedClusterClient();
  const ns = await admin.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  expect(ns.status, ns.text).toBe(201);
  const held = await admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: HELD, namespace: NS, finalizers: [FINALIZER] },
      data: { a: '1' },
    },
  });
  expect(held.status, held.text).toBe(201);
  healthPort = await freePort();
  agent = await startInProcessAgent(
    [
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      `cloudctl:\n  grpc: ${cp.address}\n  insecure: true\n  auth:\n    token: ${AGENT_TOKEN}`,
      'orchestrator:\n  accounts:',
      '    - name: obs',
      `      orchConfigFile: ${sharedCluster().kubeconfigPath}`,
      `      namespaces: [${NS}]`,
      '      kinds: [configMap]',
    ].join('\n'),
    { shutdownDeadlineMs: DEADLINE_MS },
  );
});

afterAll(async () => {
  agent?.stop();
  await agent?.done;
  // The finalizer is ours: release the object so the namespace can go.
  await admin?.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/${HELD}`, {
    body: { metadata: { finalizers: null } },
    contentType: 'application/merge-patch+json',
  });
  await admin?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await admin?.close();
  await cp?.close();
});

describe('shutdown during a long operation', () => {
  it('stops taking operations, turns /ready 503, cuts the operation off and reports it as SHUTTING_DOWN', async () => {
    if (agent === undefined) throw new Error('agent not started');
    const running = agent;
    const ready = `http://127.0.0.1:${healthPort}/ready`;
    await msUntil(async () => (await statusOf(ready)).status === 200, 10_000, 'ready before the operation');

    const outcome = cp.plane.operations.execute({
      account: 'obs',
      type: 'delete',
      payload: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: HELD, wait: true },
      timeoutMs: 60_000,
    });
    await msUntil(() => running.runtime.operations.inFlight().length === 1, 5000, 'operation in flight');
    // The delete went through: the object is terminating, held by the finalizer.
    await msUntil(
      async () => {
        const got = await admin.get(`/api/v1/namespaces/${NS}/configmaps/${HELD}`);
        return JSON.stringify(got.json).includes('deletionTimestamp');
      },
      5000,
      'object terminating',
    );
    // Still running after a while: it cannot finish on its own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(running.runtime.operations.inFlight()).toHaveLength(1);

    // Poll /ready through the drain until the health server closes.
    const seen: Array<{ atMs: number; status: number; body: unknown }> = [];
    const stopAt = performance.now();
    const polling = (async () => {
      for (;;) {
        try {
          seen.push({ atMs: performance.now() - stopAt, ...(await statusOf(ready)) });
        } catch {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    running.stop('SIGTERM');
    await running.done;
    const stoppedMs = performance.now() - stopAt;
    await polling;

    const lifecycle = running.logs.filter((l) => l.component === undefined).map((l) => l.msg);
    expect(lifecycle.slice(lifecycle.indexOf('orch-agent started'))).toEqual([
      'orch-agent started',
      'orch-agent stopping: no new operations',
      'operation cut off by shutdown, reported as failed',
      'orch-agent stopped',
    ]);
    const id = running.runtime.operations.recent()[0]?.id;
    expect(running.logs.find((l) => l.msg === 'orch-agent stopping: no new operations')).toMatchObject({
      signal: 'SIGTERM',
      inFlight: 1,
      deadlineMs: DEADLINE_MS,
    });
    expect(running.logs.find((l) => l.msg.startsWith('operation cut off'))).toMatchObject({
      operation: id,
      type: 'delete',
      account: 'obs',
    });
    expect(running.logs.find((l) => l.msg === 'orch-agent stopped')).toMatchObject({ cutOff: 1 });

    // cloudctl got the result before the agent went away.
    expect(await outcome).toEqual({
      id,
      outcome: 'failed',
      error: { code: 'SHUTTING_DOWN', message: 'agent shutting down' },
    });

    // From the signal on, /ready answers 503 naming the operations check, for the whole drain.
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.map((s) => s.status)).toEqual(seen.map(() => 503));
    expect(seen[0]?.body).toHaveProperty(
      'checks',
      expect.arrayContaining([
        { name: 'operations', ok: false, message: 'shutting down: not accepting operations' },
      ]),
    );
    // The listener closes only after the drain: the last answer comes within a poll of its end.
    expect(seen.at(-1)?.atMs).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    // The deadline is what the drain waited for; reporting and closing took the rest.
    expect(stoppedMs).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(stoppedMs).toBeLessThan(DEADLINE_MS + 3000);
    console.log(
      `shutdown: /ready 503 from ${Math.round(seen[0]?.atMs ?? -1)} ms to ${Math.round(seen.at(-1)?.atMs ?? -1)} ms, stopped after ${Math.round(stoppedMs)} ms`,
    );
  });
});
