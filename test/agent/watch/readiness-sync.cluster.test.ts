// Readiness means the control plane holds the initial state: an account counts as synced once
// cloudctl has acknowledged each scope's snapshot end, not when the agent has merely read the lists.
// cloudctl's store is held back here so the two moments are far apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  createNamespace,
  holdCommits,
  msUntil,
  msUntilReady,
  type RunningAgent,
  startAgent,
  storedNames,
} from './watch-fixture.ts';

const NS = 'readiness-sync';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;

const readiness = async () => {
  const response = await fetch(`http://127.0.0.1:${agent?.healthPort}/ready`);
  return { status: response.status, body: await response.text() };
};

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['a', 'b']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
});

describe('readiness and the initial sync', () => {
  it('stays not ready while the lists are read but not yet stored, and turns ready once cloudctl has them', async () => {
    const gate = holdCommits(cp.plane.store.cache);
    agent = await startAgent(cp, {
      orchestrator: {
        accounts: [
          {
            name: 'ready-sync',
            orchConfigFile: sharedCluster().kubeconfigPath,
            namespaces: [NS],
            kinds: ['configMap'],
          },
        ],
      },
    });
    const running = agent;
    // The list is read and its snapshot end is in the agent's buffer: the scope watches.
    await msUntil('the scope to be watching', () =>
      running.runtime.watches.list().some((w) => w.account === 'ready-sync' && w.state === 'watching'),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = await readiness();
    expect(held.status).toBe(503);
    expect(held.body).toContain('initial sync in progress: ready-sync');

    gate.open();
    await msUntilReady(running);
    expect(await storedNames(cp, 'ready-sync', 'ConfigMap')).toEqual(
      expect.arrayContaining([`${NS}/a`, `${NS}/b`]),
    );
  });
});
