// Reconnect pacing and the state machine: variant B grows its delay by cloudctl.backoff.* within the
// jitter bounds; variants A and C wait the fixed orchestrator.reconnectTimeoutMs every time.
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, closedPort, connectionFor, metricValue, type TestConnection } from './support.ts';

const MS = 1_000_000;
const open: TestConnection[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
});

/** Delays between entering backoff and the next connecting, for the first `n` failed attempts. */
async function measuredDelays(c: TestConnection, n: number): Promise<number[]> {
  await c.connection.start();
  const delays: number[] = [];
  let index = 0;
  for (let i = 0; i < n; i++) {
    const backoffAt = await c.waitFor('backoff', 5000, index);
    index = c.transitions.findIndex((t, j) => j >= index && t.state === 'backoff') + 1;
    const connectingAt = await c.waitFor('connecting', 5000, index);
    index = c.transitions.findIndex((t, j) => j >= index && t.state === 'connecting') + 1;
    delays.push(connectingAt - backoffAt);
  }
  return delays;
}

describe('reconnect policy', () => {
  it('variant B: delays grow by the multiplier up to maxDelay, within ±jitter', async () => {
    const port = await closedPort();
    const c = connectionFor(
      agentConfig('B', {
        cloudctl: {
          grpc: `127.0.0.1:${port}`,
          backoff: { baseDelay: 100 * MS, multiplier: 2, jitter: 0.2, maxDelay: 400 * MS },
        },
      }),
    );
    open.push(c);
    const delays = await measuredDelays(c, 5);
    const expected = [100, 200, 400, 400, 400];
    delays.forEach((delay, i) => {
      const base = expected[i] ?? 0;
      // Timers fire no earlier than asked; 60 ms of slack for a loaded machine.
      expect(delay, `delay ${i + 1}`).toBeGreaterThanOrEqual(base * 0.8 - 2);
      expect(delay, `delay ${i + 1}`).toBeLessThanOrEqual(base * 1.2 + 60);
    });
  });

  it.each(['A', 'C'] as const)('variant %s: the fixed reconnectTimeoutMs every time', async (variant) => {
    const port = await closedPort();
    const c = connectionFor(
      agentConfig(variant, {
        cloudctl: { grpc: `127.0.0.1:${port}`, insecure: true },
        orchestrator: { reconnectTimeoutMs: 150 },
      }),
    );
    open.push(c);
    const delays = await measuredDelays(c, 4);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(148);
      expect(delay).toBeLessThanOrEqual(210);
    }
  });
});

describe('connection state machine', () => {
  it('goes idle → connecting → connected, counts the connect, and is ready only while connected', async () => {
    const cp = await startTestControlPlane();
    try {
      const c = connectionFor(
        agentConfig('B', { cloudctl: { grpc: cp.address, auth: { token: AGENT_TOKEN } } }),
      );
      open.push(c);
      const check = c.connection.readinessCheck();
      expect(check).toMatchObject({ name: 'control-plane', kind: 'readiness' });
      expect(check.check().ok).toBe(false);
      await c.connection.start();
      await c.waitFor('connected');
      expect(c.transitions.map((t) => t.state)).toEqual(['connecting', 'connected']);
      expect(check.check().ok).toBe(true);
      expect(await metricValue(c.registry, 'orch_agent_connects_total')).toBe(1);
      expect(await metricValue(c.registry, 'orch_agent_connection_state', { state: 'connected' })).toBe(1);
      const [session] = cp.plane.registry.list();
      expect(session).toMatchObject({
        agentId: 'agent-1',
        zoneId: 'zone-a',
        replicaCount: 2,
        version: '0.1.0-test',
        // B's cloudctl.responseRetries: 3 retries, 3000 ms apart.
        resultRetryWindowMs: 9000,
      });

      await c.connection.stop();
      expect(c.connection.state).toBe('stopped');
      expect(check.check().ok).toBe(false);
      expect(await metricValue(c.registry, 'orch_agent_disconnects_total', { reason: 'stopped' })).toBe(1);
      expect(await metricValue(c.registry, 'orch_agent_connection_state', { state: 'stopped' })).toBe(1);
    } finally {
      await cp.close();
    }
  });
});
