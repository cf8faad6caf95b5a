// The session service: token authentication, registration into the registry and the store, status
// and heartbeats, and leaving the registry when the stream goes.
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, helloFor, startTestControlPlane, TestAgent, type TestControlPlane } from './harness.ts';

let cp: TestControlPlane;
const agents: TestAgent[] = [];

function agent(options: ConstructorParameters<typeof TestAgent>[1] = {}): TestAgent {
  const created = new TestAgent(cp.address, options);
  agents.push(created);
  return created;
}

// One control plane for the file (PGlite takes seconds to start); each test uses its own accounts
// and leaves no session behind.
beforeAll(async () => {
  cp = await startTestControlPlane({ grpc: { heartbeatSeconds: 1 } });
});

afterEach(async () => {
  for (const a of agents.splice(0)) a.close();
  await expect.poll(() => cp.plane.registry.list()).toEqual([]);
});

afterAll(async () => {
  await cp?.close();
});

describe('bearer token authentication', () => {
  it('accepts the configured token over plaintext and registers the agent', async () => {
    const registered = await agent({ token: AGENT_TOKEN }).connect(
      helloFor('agent-1', ['prod-0', 'staging-0']),
    );
    expect(registered.registered?.cache.map((c) => [c.account, c.enabled])).toEqual([
      ['prod-0', true],
      ['staging-0', true],
    ]);
    expect(await cp.plane.store.agents.account('prod-0')).toMatchObject({
      agentId: 'agent-1',
      status: 'UNKNOWN',
    });
  });

  it.each([
    ['no token', undefined, status.UNAUTHENTICATED, 'no bearer token and no client certificate'],
    ['an unknown token', 'not-the-token', status.UNAUTHENTICATED, 'unknown bearer token'],
  ])(
    'refuses a session with %s, logs why without the token, and stores nothing',
    async (_, token, code, reason) => {
      const refused = agent(token === undefined ? {} : { token });
      refused.openSession().write({ hello: helloFor('agent-1', ['prod-1']) });
      expect(await refused.sessionEnded).toMatchObject({ code, details: reason });
      expect(cp.plane.registry.list()).toEqual([]);
      expect(await cp.plane.store.agents.account('prod-1')).toBeUndefined();
      const line = cp.logs.find((l) => l.msg === `refused agent call: ${reason}`);
      expect(line).toMatchObject({ method: '/orchagent.v1.AgentSession/Connect' });
      expect(JSON.stringify(cp.logs)).not.toContain('not-the-token');
    },
  );

  it('refuses a hello naming another agent than the token proves, with PERMISSION_DENIED', async () => {
    const impostor = agent({ token: AGENT_TOKEN });
    impostor.openSession().write({ hello: helloFor('agent-2', ['prod-2']) });
    expect(await impostor.sessionEnded).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(cp.plane.registry.list()).toEqual([]);
    expect(await cp.plane.store.agents.account('prod-2')).toBeUndefined();
    expect(
      cp.logs.some((l) => l.msg.startsWith('refused agent call') && l.claimedAgentId === 'agent-2'),
    ).toBe(true);
  });

  it('refuses a session whose first message is not hello', async () => {
    const rude = agent({ token: AGENT_TOKEN });
    rude.openSession().write({ heartbeat: { sequence: 1 } });
    expect(await rude.sessionEnded).toMatchObject({ code: status.FAILED_PRECONDITION });
  });
});

describe('registry of connected agents', () => {
  it('shows a connected agent with its version, zone and accounts, and drops it when the stream is cancelled', async () => {
    const a = agent({ token: AGENT_TOKEN });
    await a.connect(helloFor('agent-1', ['prod-4']));
    const [session] = cp.plane.registry.list();
    expect(session).toMatchObject({
      agentId: 'agent-1',
      version: '0.1.0',
      zoneId: 'zone-a',
      replicaCount: 1,
    });
    expect(session?.accounts.map((x) => x.name)).toEqual(['prod-4']);
    a.cancelSession();
    await expect.poll(() => cp.plane.registry.list()).toEqual([]);
  });

  it('drops an agent that closes its stream cleanly', async () => {
    const a = agent({ token: AGENT_TOKEN });
    await a.connect(helloFor('agent-1', ['prod-5']));
    a.endSession();
    expect(await a.sessionEnded).toMatchObject({ code: status.OK });
    expect(cp.plane.registry.list()).toEqual([]);
  });

  it('records heartbeats and account status reports', async () => {
    const a = agent({ token: AGENT_TOKEN });
    await a.connect(helloFor('agent-1', ['prod-6']));
    const before = cp.plane.registry.list()[0]?.lastHeartbeatAt.getTime() ?? 0;
    await new Promise((r) => setTimeout(r, 20));
    a.send({ heartbeat: { sequence: 1 } });
    a.send({ accountStatus: { account: 'prod-6', state: 'FAILED', message: 'pods is forbidden' } });
    await expect.poll(async () => (await cp.plane.store.agents.account('prod-6'))?.status).toBe('FAILED');
    expect((await cp.plane.store.agents.account('prod-6'))?.statusMessage).toBe('pods is forbidden');
    expect(cp.plane.registry.list()[0]?.lastHeartbeatAt.getTime()).toBeGreaterThan(before);
  });

  it('sends heartbeats down every heartbeatSeconds', async () => {
    const a = agent({ token: AGENT_TOKEN });
    await a.connect(helloFor('agent-1', ['prod-7']));
    const beat = await a.next((m) => m.message === 'heartbeat', 3000);
    expect(beat.heartbeat?.sequence).toBe('1');
    expect(Number(beat.heartbeat?.sentAt?.seconds)).toBeGreaterThan(0);
  });
});
