// `/ready` follows the control-plane connection of a whole agent: a real cloudctl is stopped hard and
// started again on the same port and data directory, or goes silent behind a relay, and the readiness
// probe flips both ways within the time the heartbeat, keep-alive and backoff settings allow.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type InProcessAgent, msUntil, startInProcessAgent, statusOf } from '../in-process-agent.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The agent's config: health on `healthPort`, cloudctl at `address`, 1 s heartbeat, 2 s silence. */
function agentYaml(healthPort: number, address: string): string {
  return [
    `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
    'cloudctl:',
    `  grpc: ${address}`,
    '  insecure: true',
    `  auth:\n    token: ${AGENT_TOKEN}`,
    '  keepAliveHeartbeatSeconds: 1',
    '  keepAliveTimeOutSeconds: 2',
    // 200 ms, growing to at most 1 s: the reconnect after the outage is paced by this.
    '  backoff:\n    baseDelay: 200000000\n    maxDelay: 1000000000',
    'orchestrator:\n  accounts: []',
  ].join('\n');
}

async function startAgent(healthPort: number, address: string): Promise<InProcessAgent> {
  const agent = await startInProcessAgent(agentYaml(healthPort, address));
  cleanups.push(async () => {
    agent.stop();
    await agent.done;
  });
  return agent;
}

/**
 * A TCP relay in front of cloudctl that can go silent: while frozen it keeps every connection open
 * but forwards nothing, as a peer behind a dead network path; thawing drops the connections that
 * lost bytes, so the next ones start clean.
 */
async function startRelay(targetPort: number) {
  let frozen = false;
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!frozen) to.write(chunk);
      });
      from.on('close', close);
      from.on('error', close);
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no port');
  const closeAll = () => {
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  cleanups.push(
    () =>
      new Promise((resolve) => {
        closeAll();
        server.close(() => resolve());
      }),
  );
  return {
    address: `127.0.0.1:${address.port}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      closeAll();
    },
  };
}

const controlPlaneDown = {
  name: 'control-plane',
  ok: false,
  message: expect.stringMatching(/^control plane connection (backoff|connecting) since /),
};

describe('readiness and the control-plane connection', () => {
  it('turns 503 naming control-plane soon after cloudctl dies, and 200 again once it is back', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-readiness-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const planes: TestControlPlane[] = [];
    cleanups.push(async () => {
      for (const plane of planes) await plane.close().catch(() => undefined);
    });
    const first = await startTestControlPlane({ database: { dataDir } });
    planes.push(first);
    const port = Number(first.address.split(':')[1]);
    const healthPort = await freePort();
    const agent = await startAgent(healthPort, first.address);
    const ready = `http://127.0.0.1:${healthPort}/ready`;

    await msUntil(async () => (await statusOf(ready)).status === 200, 5000, 'ready at start');
    expect(agent.runtime.connection.state).toBe('connected');

    await first.close();
    const downMs = await msUntil(async () => (await statusOf(ready)).status === 503, 5000, '503 after close');
    const down = await statusOf(ready);
    expect(down).toMatchObject({ status: 503, body: { status: 'DOWN' } });
    expect(down.body).toHaveProperty(
      'checks',
      expect.arrayContaining([
        controlPlaneDown,
        expect.objectContaining({ name: 'initial-sync', ok: true }),
        expect.objectContaining({ name: 'operations', ok: true }),
      ]),
    );
    // Gone for good until the restart: no flapping back to ready while nothing listens.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await statusOf(ready)).status).toBe(503);

    const second = await startTestControlPlane({ database: { dataDir }, grpc: { port } });
    planes.push(second);
    const upMs = await msUntil(async () => (await statusOf(ready)).status === 200, 5000, '200 after restart');
    expect(agent.runtime.connection.state).toBe('connected');

    console.log(`readiness flips: 503 after ${Math.round(downMs)} ms, 200 after ${Math.round(upMs)} ms`);
    // keepAliveTimeOutSeconds is the bound for a silent peer; a closed one is noticed at once.
    expect(downMs).toBeLessThan(2000);
    // At most one backoff delay (1 s with jitter) plus the handshake.
    expect(upMs).toBeLessThan(2000);
  });

  it('turns 503 within the keep-alive timeout when cloudctl goes silent, and 200 once it answers again', async () => {
    const cp = await startTestControlPlane();
    cleanups.push(() => cp.close());
    const relay = await startRelay(Number(cp.address.split(':')[1]));
    const healthPort = await freePort();
    const agent = await startAgent(healthPort, relay.address);
    const ready = `http://127.0.0.1:${healthPort}/ready`;
    await msUntil(async () => (await statusOf(ready)).status === 200, 5000, 'ready at start');

    relay.freeze();
    const downMs = await msUntil(async () => (await statusOf(ready)).status === 503, 6000, '503 when silent');
    expect((await statusOf(ready)).body).toHaveProperty('checks', expect.arrayContaining([controlPlaneDown]));
    // Nothing but silence told the agent: the session ended on the missed heartbeat.
    expect(agent.logs).toContainEqual(
      expect.objectContaining({
        msg: 'session with the control plane ended',
        reason: 'heartbeat_missed',
        detail: 'nothing from the control plane for 2000 ms',
      }),
    );

    relay.thaw();
    const upMs = await msUntil(async () => (await statusOf(ready)).status === 200, 5000, '200 after thaw');
    console.log(
      `readiness flips (silent peer): 503 after ${Math.round(downMs)} ms, 200 after ${Math.round(upMs)} ms`,
    );
    // keepAliveTimeOutSeconds (2 s) after the last answer, which came at most 1 s (a heartbeat) ago.
    expect(downMs).toBeGreaterThan(1000);
    expect(downMs).toBeLessThan(3500);
    expect(upMs).toBeLessThan(2000);
  });
});
