// Keep-alive: heartbeats go up at keepAliveHeartbeatSeconds; a control plane that stays silent for
// twice the period ends the session (heartbeat_missed); keepAliveOperationSeconds restarts a
// session that received no operations.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, connectionFor, metricValue, type TestConnection, until } from './support.ts';

let cp: TestControlPlane;
const heartbeats: number[] = [];
const open: TestConnection[] = [];

beforeAll(async () => {
  // A control plane that sends no heartbeats of its own: the agent hears nothing unless it is sent work.
  cp = await startTestControlPlane({ grpc: { heartbeatSeconds: 0 } });
  const registry = cp.plane.registry;
  const record = registry.heartbeat.bind(registry);
  registry.heartbeat = (sessionId, at) => {
    heartbeats.push(performance.now());
    record(sessionId, at);
  };
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
  heartbeats.length = 0;
});
afterAll(async () => {
  await cp?.close();
});

function connection(cloudctl: Record<string, unknown>): TestConnection {
  const c = connectionFor(
    agentConfig('B', {
      cloudctl: {
        grpc: cp.address,
        auth: { token: AGENT_TOKEN },
        backoff: { baseDelay: 100_000_000, maxDelay: 100_000_000 },
        ...cloudctl,
      },
    }),
  );
  open.push(c);
  return c;
}

describe('keep-alive', () => {
  it('sends a heartbeat every keepAliveHeartbeatSeconds', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 1, keepAliveTimeOutSeconds: 30 });
    await c.connection.start();
    const connectedAt = await c.waitFor('connected');
    await until(() => heartbeats.length >= 3, 5000, 'three heartbeats');
    const times = [connectedAt, ...heartbeats.slice(0, 3)];
    for (let i = 1; i < times.length; i++) {
      const gap = (times[i] ?? 0) - (times[i - 1] ?? 0);
      expect(gap, `gap ${i}`).toBeGreaterThanOrEqual(900);
      expect(gap, `gap ${i}`).toBeLessThanOrEqual(1250);
    }
  });

  it('keepAliveHeartbeatSeconds: 0 sends none', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 0 });
    await c.connection.start();
    await c.waitFor('connected');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(heartbeats).toEqual([]);
    expect(c.connection.state).toBe('connected');
  });

  it('restarts the session when the control plane is silent for twice the heartbeat period', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 1 });
    await c.connection.start();
    const connectedAt = await c.waitFor('connected');
    const endedAt = await c.waitFor('backoff', 4000);
    expect(endedAt - connectedAt).toBeGreaterThanOrEqual(1950);
    expect(endedAt - connectedAt).toBeLessThanOrEqual(2300);
    expect(
      await metricValue(c.registry, 'orch_agent_disconnects_total', { reason: 'heartbeat_missed' }),
    ).toBe(1);
    const index = c.transitions.findIndex((t) => t.state === 'backoff');
    await c.waitFor('connected', 2000, index);
  });

  it('restarts a session that received no operation for keepAliveOperationSeconds', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 0, keepAliveOperationSeconds: 1 });
    await c.connection.start();
    const firstAt = await c.waitFor('connected');
    const index = c.transitions.findIndex((t) => t.state === 'connected') + 1;
    const secondAt = await c.waitFor('connected', 3000, index);
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(1000);
    expect(secondAt - firstAt).toBeLessThanOrEqual(1400);
    expect(await metricValue(c.registry, 'orch_agent_disconnects_total', { reason: 'operation_idle' })).toBe(
      1,
    );
    // A deliberate restart of a healthy connection: straight back, no backoff state.
    expect(c.transitions.map((t) => t.state).slice(0, 4)).toEqual([
      'connecting',
      'connected',
      'connecting',
      'connected',
    ]);
  });

  it('keepAliveOperationSeconds: operations keep the session', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 0, keepAliveOperationSeconds: 1 });
    await c.connection.start();
    await c.waitFor('connected');
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      void cp.plane.operations
        .execute({ account: 'acct-a', type: 'noop', payload: { i }, timeoutMs: 5000 })
        .catch(() => undefined);
    }
    await until(() => c.operations.length === 4, 2000, 'four operations');
    expect(c.transitions.filter((t) => t.state === 'connected')).toHaveLength(1);
  });
});
