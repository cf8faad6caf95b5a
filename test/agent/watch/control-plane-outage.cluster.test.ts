// What a lost control-plane connection does to running watches (spec: a task runs "until explicitly
// stopped (account unregistered or connection to the control plane lost)"): every watch stops while
// the control plane is away, and when it is back they resume from its resume points, without a list,
// and deliver every change made meanwhile, deletes included.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  agentLists,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  msUntilReady,
  msUntilStored,
  type RunningAgent,
  startAgent,
} from './watch-fixture.ts';

const NS = 'cp-outage';
let admin: ApiClient;
let dataDir: string;
let cp: TestControlPlane | undefined;
let agent: RunningAgent | undefined;

const settings = () => ({
  orchestrator: {
    accounts: [
      {
        name: 'outage',
        orchConfigFile: sharedCluster().kubeconfigPath,
        namespaces: [NS],
        kinds: ['configMap'],
        maxResumableResourceAgeMs: 120_000,
      },
    ],
  },
});

beforeAll(async () => {
  admin = sharedClusterClient();
  dataDir = await mkdtemp(join(tmpdir(), 'cp-outage-'));
  await createNamespace(admin, NS, ['kept', 'doomed']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a lost control-plane connection', () => {
  it('stops every watch until the control plane is back, then resumes without a list and delivers the changes made meanwhile', async () => {
    cp = await startTestControlPlane({ database: { dataDir } });
    const port = Number(cp.address.split(':')[1]);
    agent = await startAgent(cp, settings(), 'info');
    const running = agent;
    await msUntilReady(running, 20_000);
    await msUntilStored(cp, 'outage', 'ConfigMap', [`${NS}/doomed`, `${NS}/kept`]);
    expect(running.runtime.watches.active()).toBeGreaterThan(0);

    await cp.close();
    cp = undefined;
    await msUntil(
      'watches stopped',
      () => running.runtime.watches.active() === 0 && running.runtime.watch.watchedAccounts().length === 0,
      15_000,
    );
    expect(
      running.logs.some((l) => l.msg === 'control plane connection lost: watches stopped until it is back'),
    ).toBe(true);

    // While the control plane is away: a create and a delete, which nobody watches.
    await createConfigMap(admin, NS, 'made-while-away');
    await deleteObject(admin, `/api/v1/namespaces/${NS}/configmaps/doomed`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(running.runtime.watches.active()).toBe(0);

    const listsBefore = await agentLists(running);
    cp = await startTestControlPlane({ database: { dataDir }, grpc: { port } });
    const back = cp;
    const caughtUpMs = await msUntilStored(
      back,
      'outage',
      'ConfigMap',
      [`${NS}/kept`, `${NS}/made-while-away`],
      30_000,
    );
    expect(running.runtime.watches.active()).toBeGreaterThan(0);
    // Resumed from the control plane's resume points: no list was needed.
    expect(await agentLists(running)).toBe(listsBefore);
    console.info(
      `control-plane outage: changes made while away stored ${Math.round(caughtUpMs)} ms after it came back`,
    );
    // Its own waits are the bounds (20 s ready, 15 s stopped, 30 s caught up); the suite's 30 s
    // default, shorter than their sum, ended it at 31.6 s on a loaded machine.
  }, 90_000);
});
