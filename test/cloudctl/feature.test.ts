// The feature loop (src/cloudctl/feature.ts) with small features that record what happens to them:
// start phase by phase, stop in reverse with a phase's closes called together, a start that fails
// stops what started. Then the real control plane: its close stops the API first, then the work
// (a task waiting for its operation stops at once, where it is, and carries on after a restart), then
// the agents' endpoint, then the stores.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Feature, type Phase, startFeatures } from '../../src/cloudctl/feature.ts';
import { startTestControlPlane, TestAgents, type TestControlPlane, USERS } from './harness.ts';
import { apiClient } from './http-client.ts';

interface Recorder {
  events: string[];
  feature(
    name: string,
    phase: Phase,
    options?: { start?: () => Promise<void>; close?: () => Promise<void> },
  ): Feature;
}

function recorder(): Recorder {
  const events: string[] = [];
  return {
    events,
    feature: (name, phase, options = {}) => ({
      name,
      phase,
      start: async () => {
        events.push(`start ${name}`);
        await options.start?.();
      },
      close: async () => {
        events.push(`close ${name}`);
        await options.close?.();
        events.push(`closed ${name}`);
      },
    }),
  };
}

const silent = pino({ level: 'silent' });

describe('the feature loop', () => {
  it('starts phase by phase, lowest first, and in list order within a phase, whatever the list order', async () => {
    const { events, feature } = recorder();
    await startFeatures(
      [
        feature('http', 'http'),
        feature('tasks', 'services'),
        feature('stores', 'store'),
        feature('deployments', 'services'),
        feature('grpc', 'grpc'),
        feature('resume', 'resume'),
        feature('replicas', 'replicas'),
      ],
      silent,
    );
    expect(events).toEqual([
      'start stores',
      'start replicas',
      'start grpc',
      'start tasks',
      'start deployments',
      'start http',
      'start resume',
    ]);
  });

  it('stops in reverse phase order, each phase once the one above it has stopped', async () => {
    const { events, feature } = recorder();
    const slowly = () => new Promise<void>((resolve) => setTimeout(resolve, 50));
    const started = await startFeatures(
      [
        feature('stores', 'store'),
        feature('replicas', 'replicas'),
        feature('grpc', 'grpc', { close: slowly }),
        feature('tasks', 'services'),
        feature('http', 'http', { close: slowly }),
      ],
      silent,
    );
    events.length = 0;
    await started.stop();
    expect(events).toEqual([
      'close http',
      'closed http',
      'close tasks',
      'closed tasks',
      'close grpc',
      'closed grpc',
      'close replicas',
      'closed replicas',
      'close stores',
      'closed stores',
    ]);
  });

  it('calls every close of a phase before awaiting any: a runner stops once the dispatcher fails its waits', async () => {
    const { events, feature } = recorder();
    let failWaits = () => {};
    const waitsFailed = new Promise<void>((resolve) => {
      failWaits = resolve;
    });
    // Listed first, so closed last within the phase: were closes awaited one by one, the runner
    // would wait for ever.
    const dispatcher = feature('operations', 'services', { close: async () => failWaits() });
    const runner = feature('tasks', 'services', { close: () => waitsFailed });
    const started = await startFeatures([feature('stores', 'store'), dispatcher, runner], silent);
    events.length = 0;
    await started.stop();
    // Both closes called before either has finished; the phase below only after both.
    expect(events.slice(0, 2)).toEqual(['close tasks', 'close operations']);
    expect(events.slice(2, 4).sort()).toEqual(['closed operations', 'closed tasks']);
    expect(events.slice(4)).toEqual(['close stores', 'closed stores']);
  });

  it('stops what started, in reverse, when a feature cannot start, and throws its error; later ones never start', async () => {
    const { events, feature } = recorder();
    const taken = new Error('LISTEN_FAILED: HTTP 127.0.0.1:7002: EADDRINUSE');
    const starting = startFeatures(
      [
        feature('stores', 'store'),
        feature('replicas', 'replicas'),
        feature('grpc', 'grpc'),
        feature('tasks', 'services'),
        feature('http', 'http', {
          start: () => Promise.reject(taken),
        }),
        feature('resume', 'resume'),
      ],
      silent,
    );
    await expect(starting).rejects.toBe(taken);
    expect(events).toEqual([
      'start stores',
      'start replicas',
      'start grpc',
      'start tasks',
      'start http',
      // http did not start: it is not closed; what started before it is, from the top down.
      'close tasks',
      'closed tasks',
      'close grpc',
      'closed grpc',
      'close replicas',
      'closed replicas',
      'close stores',
      'closed stores',
    ]);
  });

  it('stops the rest when a close fails, and rejects with that failure once all have stopped', async () => {
    const { events, feature } = recorder();
    const refused = new Error('cannot leave the replicas');
    const started = await startFeatures(
      [
        feature('stores', 'store'),
        feature('replicas', 'replicas', { close: () => Promise.reject(refused) }),
        feature('http', 'http'),
      ],
      silent,
    );
    events.length = 0;
    await expect(started.stop()).rejects.toBe(refused);
    expect(events).toEqual(['close http', 'closed http', 'close replicas', 'close stores', 'closed stores']);
  });

  it('stops once, however often it is asked', async () => {
    const { events, feature } = recorder();
    const started = await startFeatures([feature('stores', 'store')], silent);
    events.length = 0;
    await Promise.all([started.stop(), started.stop()]);
    await started.stop();
    expect(events).toEqual(['close stores', 'closed stores']);
  });
});

describe("the control plane's close", () => {
  const agents = new TestAgents();
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cloudctl-close-'));
  });

  afterAll(async () => {
    agents.closeAll();
    await rm(dir, { recursive: true, force: true });
  });

  /** A control plane on the database in `dir` that waits a minute for a result: far longer than a close may take. */
  const start = () =>
    startTestControlPlane({
      database: { dataDir: join(dir, 'data') },
      operations: { waitTimeoutMs: 60_000 },
    });

  const stopped = (cp: TestControlPlane) =>
    cp.logs.filter((line) => line.msg === 'stopped').map((line) => [line.phase, line.features]);

  it('stops the API, then the work, then the agents, then the stores; a waiting task stops and carries on after a restart', async () => {
    const first = await start();
    const agent = await agents.connect(first.address, ['close-account']);
    const ops = apiClient(first.url, USERS.ops.token);
    const posted = ops.post('/ops/scaleManifest', {
      account: 'close-account',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 3,
    });
    const scale = await agent.next((m) => m.message === 'operation' && m.operation?.type === 'scale');
    const task = await posted;
    expect(task.status).toBe(200);

    // The scale is never answered: the task waits for it until the close fails the wait.
    const closing = Date.now();
    await first.close();
    expect(Date.now() - closing).toBeLessThan(10_000);
    const phases = stopped(first);
    expect(phases.map(([phase]) => phase)).toEqual([
      'resume',
      'http',
      'services',
      'grpc',
      'replicas',
      'store',
    ]);
    // The API, its live streams (ended, so the server need not wait for them) and its readiness
    // together; the runners with the dispatcher that fails their waits.
    expect(phases[1]?.[1]).toEqual(['http', 'watch', 'observability']);
    expect(phases[2]?.[1]).toEqual(
      expect.arrayContaining(['tasks', 'deployments', 'operations', 'dynamic-accounts', 'sessions']),
    );

    const second = await start();
    try {
      expect(second.logs.some((l) => l.msg === 'carrying on tasks left unfinished by the last run')).toBe(
        true,
      );
      const again = await agents.connect(second.address, ['close-account']);
      // The same operation, sent again to the agent now serving the account.
      const resent = await again.next((m) => m.message === 'operation' && m.operation?.type === 'scale');
      expect(resent.operation?.id).toBe(scale.operation?.id);
      await again.report({
        operationId: resent.operation?.id,
        account: 'close-account',
        outcome: 'SUCCEEDED',
        result: Buffer.from(JSON.stringify({ replicas: 3 })),
      });
      const follow = apiClient(second.url, USERS.ops.token);
      await expect
        .poll(async () => (await follow.get(`/task/${task.body.id}`)).body.status, { timeout: 10_000 })
        .toMatchObject({ completed: true, failed: false });
    } finally {
      await second.close();
    }
  }, 120_000);
});
