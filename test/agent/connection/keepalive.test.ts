// Keep-alive: heartbeats go up at keepAliveHeartbeatSeconds; a control plane that stays silent for
// twice the period ends the session (heartbeat_missed); keepAliveOperationSeconds restarts a
// session that received no operations.
//
// The tests wait on events (heartbeats received, state transitions, another session's restarts), not
// on time windows, so a busy machine only makes them slower. Where a period is the behaviour, they
// assert the lower bound timers guarantee: measured from `connecting`, which comes before the session
// arms its timers, nothing can happen sooner than the period; a loaded machine only makes it later.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/cloudctl/index.ts';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import {
  agentConfig,
  connectionFor,
  metricValue,
  registrationFor,
  type TestConnection,
  until,
} from './support.ts';

/** The agent under test, and a second one beside it as a yardstick; each serves an account of its own. */
const AGENTS = {
  subject: { id: 'agent-1', token: AGENT_TOKEN, account: 'acct-a' },
  yardstick: { id: 'agent-2', token: 'token-of-agent-2-8e41', account: 'acct-b' },
} as const;
type Agent = (typeof AGENTS)[keyof typeof AGENTS];

/** Node's timers count whole milliseconds: each may fire up to 1 ms before its delay in fractions. */
const TIMER_GRANULARITY_MS = 1;

let cp: TestControlPlane;
/** Heartbeats the control plane received, with the session that sent each and when. */
const heartbeats: Array<{ sessionId: string; at: number }> = [];
const open: TestConnection[] = [];

beforeAll(async () => {
  // A control plane that sends no heartbeats of its own: the agent hears nothing unless it is sent work.
  cp = await startTestControlPlane({
    grpc: { heartbeatSeconds: 0 },
    agents: Object.values(AGENTS).map((a) => ({ id: a.id, tokenHash: hashToken(a.token) })),
  });
  const registry = cp.plane.registry;
  const record = registry.heartbeat.bind(registry);
  registry.heartbeat = (sessionId, at) => {
    heartbeats.push({ sessionId, at: performance.now() });
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

interface Subject extends TestConnection {
  /** The ids of its sessions, in the order they registered. */
  sessionIds: string[];
}

/** An agent (variant B) with these cloudctl settings; it reconnects after 100 ms. */
function connection(cloudctl: Record<string, unknown>, agent: Agent = AGENTS.subject): Subject {
  const sessionIds: string[] = [];
  const c = connectionFor(
    agentConfig('B', {
      cloudctl: {
        grpc: cp.address,
        auth: { token: agent.token },
        backoff: { baseDelay: 100_000_000, maxDelay: 100_000_000 },
        ...cloudctl,
      },
    }),
    {
      registration: () => registrationFor(agent.id, [agent.account]),
      onRegistered: (info) => void sessionIds.push(info.sessionId),
    },
  );
  open.push(c);
  return { ...c, sessionIds };
}

/** When the control plane received each heartbeat of `c`'s sessions. */
const heartbeatsOf = (c: Subject) =>
  heartbeats.filter((h) => c.sessionIds.includes(h.sessionId)).map((h) => h.at);

const states = (c: TestConnection) => c.transitions.map((t) => t.state);

/** The index just past the `n`-th (1-based) transition into `state`. */
function afterNth(c: TestConnection, state: string, n: number): number {
  let seen = 0;
  const index = c.transitions.findIndex((t) => t.state === state && ++seen === n);
  if (index < 0) throw new Error(`no transition ${n} into ${state}; saw ${states(c).join(' → ')}`);
  return index + 1;
}

describe('keep-alive', () => {
  it('sends a heartbeat every keepAliveHeartbeatSeconds', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 1, keepAliveTimeOutSeconds: 30 });
    await c.connection.start();
    const connectingAt = await c.waitFor('connecting');
    await c.waitFor('connected');
    // Three periods' worth three times over: a busy machine is slow, an ignored setting (the
    // default is 20 s) never gets there.
    await until(() => heartbeatsOf(c).length >= 3, 9000, 'three heartbeats');
    const received = heartbeatsOf(c).slice(0, 3);
    // The k-th heartbeat cannot come before k periods: not more often than asked.
    received.forEach((at, i) => {
      const k = i + 1;
      expect(at - connectingAt, `heartbeat ${k}`).toBeGreaterThanOrEqual(k * (1000 - TIMER_GRANULARITY_MS));
    });
    // All three from one session: nothing restarted it meanwhile.
    expect(states(c)).toEqual(['connecting', 'connected']);
    expect(c.sessionIds).toHaveLength(1);
  });

  it('keepAliveHeartbeatSeconds: 0 sends none', async () => {
    const quiet = connection({ keepAliveHeartbeatSeconds: 0 });
    await quiet.connection.start();
    await quiet.waitFor('connected');
    // The yardstick: an agent beside it with heartbeats every second. By the time it has sent two,
    // the quiet one has been connected for longer than two periods.
    const beating = connection(
      { keepAliveHeartbeatSeconds: 1, keepAliveTimeOutSeconds: 30 },
      AGENTS.yardstick,
    );
    await beating.connection.start();
    await until(() => heartbeatsOf(beating).length >= 2, 6000, 'two heartbeats of the other agent');
    expect(quiet.sessionIds).toHaveLength(1);
    expect(heartbeatsOf(quiet)).toEqual([]);
    // And with no heartbeat period there is no silence limit either: still the first session.
    expect(states(quiet)).toEqual(['connecting', 'connected']);
  });

  it('restarts the session when the control plane is silent for twice the heartbeat period', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 1 });
    await c.connection.start();
    const connectingAt = await c.waitFor('connecting');
    await c.waitFor('connected');
    // Four times the silence limit: room for a busy machine.
    const endedAt = await c.waitFor('backoff', 8000);
    expect(endedAt - connectingAt).toBeGreaterThanOrEqual(2000 - TIMER_GRANULARITY_MS);
    expect(
      await metricValue(c.registry, 'orch_agent_disconnects_total', { reason: 'heartbeat_missed' }),
    ).toBe(1);
    // The limit it applied: twice the period, in the words of the log.
    expect(c.logs.filter((l) => l.msg === 'session with the control plane ended')).toEqual([
      expect.objectContaining({
        reason: 'heartbeat_missed',
        detail: 'nothing from the control plane for 2000 ms',
      }),
    ]);
    // Then it reconnects, a new session.
    await c.waitFor('connected', 5000, afterNth(c, 'backoff', 1));
    expect(c.sessionIds).toHaveLength(2);
  });

  it('restarts a session that received no operation for keepAliveOperationSeconds', async () => {
    const c = connection({ keepAliveHeartbeatSeconds: 0, keepAliveOperationSeconds: 1 });
    await c.connection.start();
    const connectingAt = await c.waitFor('connecting');
    await c.waitFor('connected');
    // Four times the period: room for a busy machine.
    const secondAt = await c.waitFor('connected', 4000, afterNth(c, 'connected', 1));
    expect(secondAt - connectingAt).toBeGreaterThanOrEqual(1000 - TIMER_GRANULARITY_MS);
    expect(c.operations).toEqual([]);
    expect(await metricValue(c.registry, 'orch_agent_disconnects_total', { reason: 'operation_idle' })).toBe(
      1,
    );
    expect(
      c.logs.filter(
        (l) => l.msg === 'restarting the session: no operations within keepAliveOperationSeconds',
      ),
    ).toEqual([expect.objectContaining({ reason: 'operation_idle', detail: 'no operation for 1000 ms' })]);
    // A deliberate restart of a healthy connection: straight back, no backoff state.
    expect(states(c).slice(0, 4)).toEqual(['connecting', 'connected', 'connecting', 'connected']);
    expect(c.sessionIds).toHaveLength(2);
  });

  it('keepAliveOperationSeconds: operations keep the session', async () => {
    const settings = { keepAliveHeartbeatSeconds: 0, keepAliveOperationSeconds: 1 };
    const fed = connection(settings);
    await fed.connection.start();
    await fed.waitFor('connected');
    // The yardstick: an agent beside it, with the same settings, that gets no operations.
    const idle = connection(settings, AGENTS.yardstick);
    await idle.connection.start();
    await idle.waitFor('connected');
    // Operations to the fed agent one after another, each answered, until the idle one has been
    // restarted twice: by then the fed session has lived through two idle periods.
    const deadline = Date.now() + 15_000;
    while (idle.sessionIds.length < 3) {
      if (Date.now() > deadline) throw new Error(`the idle agent went ${states(idle).join(' → ')}`);
      const i = fed.operations.length;
      // A get the agent answers by hand: not found.
      const outcome = cp.plane.operations.execute({
        account: AGENTS.subject.account,
        type: 'get',
        payload: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: `probe-${i}` },
        timeoutMs: 5000,
      });
      await until(() => fed.operations.length > i, 5000, `operation ${i} at the agent`);
      const id = fed.operations[i]?.id ?? '';
      fed.connection.reportResult({ id, ok: true, result: { object: null }, durationMs: 0 });
      expect(await outcome).toMatchObject({ id, outcome: 'succeeded' });
    }
    expect(
      await metricValue(idle.registry, 'orch_agent_disconnects_total', { reason: 'operation_idle' }),
    ).toBe(2);
    expect(fed.sessionIds).toHaveLength(1);
    expect(states(fed)).toEqual(['connecting', 'connected']);
    expect(
      await metricValue(fed.registry, 'orch_agent_disconnects_total', { reason: 'operation_idle' }),
    ).toBe(0);
  });
});
