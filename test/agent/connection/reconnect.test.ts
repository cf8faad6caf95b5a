// Reconnect pacing and the state machine: variant B grows its delay by cloudctl.backoff.* within the
// jitter bounds; variants A and C wait the fixed orchestrator.reconnectTimeoutMs every time.
//
// The jitter's random source is given, so the delay of every attempt is a known figure, which the
// agent logs (`retryInMs`) as it enters backoff: the test checks those figures, and that each wait
// lasted at least its delay, measured from `backoff`, which comes before the timer is set. A busy
// machine can only make a wait longer, so there is no upper bound to break.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, closedPort, connectionFor, metricValue, type TestConnection } from './support.ts';

const MS = 1_000_000;
/** Node's timers count whole milliseconds: one may fire up to 1 ms before its delay in fractions. */
const TIMER_GRANULARITY_MS = 1;
const open: TestConnection[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
});

/** Uniform draws in [0, 1) for the backoff's jitter: these, in turn, over and over. */
function draws(values: number[]): () => number {
  let next = 0;
  return () => values[next++ % values.length] ?? 0;
}

/**
 * The first `n` failed attempts: the delay the agent chose for each (its log), and how long it
 * waited between entering backoff and connecting again.
 */
async function reconnects(c: TestConnection, n: number): Promise<Array<{ chosen: unknown; waited: number }>> {
  await c.connection.start();
  const waits: number[] = [];
  let index = 0;
  for (let i = 0; i < n; i++) {
    const backoffAt = await c.waitFor('backoff', 5000, index);
    index = c.transitions.findIndex((t, j) => j >= index && t.state === 'backoff') + 1;
    const connectingAt = await c.waitFor('connecting', 5000, index);
    index = c.transitions.findIndex((t, j) => j >= index && t.state === 'connecting') + 1;
    waits.push(connectingAt - backoffAt);
  }
  // Every failed attempt enters backoff once and logs its delay as it does.
  const chosen = c.logs.filter((l) => l.msg === 'reconnecting to the control plane').map((l) => l.retryInMs);
  return waits.map((waited, i) => ({ chosen: chosen[i], waited }));
}

describe('reconnect policy', () => {
  it('variant B: delays grow by the multiplier up to maxDelay, spread by the jitter', async () => {
    const port = await closedPort();
    const c = connectionFor(
      agentConfig('B', {
        cloudctl: {
          grpc: `127.0.0.1:${port}`,
          backoff: { baseDelay: 100 * MS, multiplier: 2, jitter: 0.2, maxDelay: 400 * MS },
        },
      }),
      // A draw of 0 takes 20 % off, 0.5 nothing, 0.75 adds 10 %.
      { random: draws([0, 0.25, 0.5, 0.75, 0]) },
    );
    open.push(c);
    const attempts = await reconnects(c, 5);
    // 100, 200, 400, 400, 400 before jitter.
    expect(attempts.map((a) => a.chosen)).toEqual([80, 180, 400, 440, 320]);
    for (const [i, { chosen, waited }] of attempts.entries()) {
      expect(waited, `wait ${i + 1}`).toBeGreaterThanOrEqual(Number(chosen) - TIMER_GRANULARITY_MS);
    }
  });

  it.each(['A', 'C'] as const)('variant %s: the fixed reconnectTimeoutMs every time', async (variant) => {
    const port = await closedPort();
    const c = connectionFor(
      agentConfig(variant, {
        cloudctl: { grpc: `127.0.0.1:${port}`, insecure: true },
        orchestrator: { reconnectTimeoutMs: 150 },
      }),
      // Draws that would move a jittered delay: these variants have none.
      { random: draws([0, 0.9, 0, 0.9]) },
    );
    open.push(c);
    const attempts = await reconnects(c, 4);
    expect(attempts.map((a) => a.chosen)).toEqual([150, 150, 150, 150]);
    for (const [i, { waited }] of attempts.entries()) {
      expect(waited, `wait ${i + 1}`).toBeGreaterThanOrEqual(150 - TIMER_GRANULARITY_MS);
    }
  });
});

describe('connection state machine', () => {
  // Started before the test, not within it: a control plane's start on a busy machine is no part of
  // what the test times.
  let cp: TestControlPlane;
  beforeAll(async () => {
    cp = await startTestControlPlane();
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('goes idle → connecting → connected, counts the connect, and is ready only while connected', async () => {
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
  });
});
