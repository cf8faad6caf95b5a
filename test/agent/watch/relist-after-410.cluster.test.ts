// Issue 5, acceptance 2: when the agent's place in history has been compacted away, its watch gets
// 410 Gone, it lists again, sends the list as a snapshot, and the control plane ends up holding
// exactly what the cluster holds: objects deleted meanwhile are removed. A private cluster without
// the watch cache, so every watch reaches etcd and a compaction is felt at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type Cluster, startCluster } from '../../cluster/index.ts';
import {
  agentLists,
  clusterNames,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  msUntilReady,
  must,
  type RunningAgent,
  startAgent,
  storedNames,
} from './watch-fixture.ts';

const NS = 'gone';
let cluster: Cluster;
let cp: TestControlPlane;
let agent: RunningAgent | undefined;

const settings = () => ({
  orchestrator: {
    accounts: [
      {
        name: 'gone',
        orchConfigFile: cluster.kubeconfigPath,
        namespaces: [NS],
        kinds: ['configMap'],
        maxResumableResourceAgeMs: 60_000,
      },
    ],
  },
});

const storeMatchesCluster = async () =>
  JSON.stringify(await storedNames(cp, 'gone', 'ConfigMap', true)) ===
  JSON.stringify(await clusterNames(cluster.client, `/api/v1/namespaces/${NS}/configmaps`));

/** Writes of a kind the agent does not watch: etcd's revision moves past the agent's version. */
async function advanceRevision(name: string) {
  for (let i = 0; i < 3; i++) {
    must(
      await cluster.client.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-${i}`, namespace: NS } },
      }),
    );
  }
}

beforeAll(async () => {
  [cluster, cp] = await Promise.all([startCluster({ watchCache: false, nodes: 0 }), startTestControlPlane()]);
  await createNamespace(cluster.client, NS, ['keep-1', 'keep-2', 'drop-1', 'drop-2']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await cluster?.stop();
});

describe('410 Gone', () => {
  it('at start: a compacted resume point falls back to a list, and deletions made meanwhile reach the store', async () => {
    agent = await startAgent(cp, settings());
    await msUntilReady(agent);
    await msUntil('store equals cluster after the first list', storeMatchesCluster);
    await agent.stop();
    agent = undefined;

    await deleteObject(cluster.client, `/api/v1/namespaces/${NS}/configmaps/drop-1`);
    await deleteObject(cluster.client, `/api/v1/namespaces/${NS}/configmaps/drop-2`);
    await createConfigMap(cluster.client, NS, 'new-1');
    await createConfigMap(cluster.client, NS, 'new-2');
    await advanceRevision('at-start');
    const { revision } = await cluster.compactEtcd();
    const [resumePoint] = await cp.plane.store.cache.resumeVersions(['gone'], 0, new Date());
    // The premise: the agent's resume point is older than what etcd still holds.
    expect(BigInt(resumePoint?.resourceVersion ?? '0')).toBeLessThan(BigInt(revision));

    const started = performance.now();
    agent = await startAgent(cp, settings());
    await msUntil('store equals cluster after the relist', storeMatchesCluster);
    const convergedMs = performance.now() - started;
    // Resumed (no first list), got 410, listed once.
    expect(await agentLists(agent)).toBe(1);
    expect(await storedNames(cp, 'gone', 'ConfigMap')).toEqual([
      `${NS}/keep-1`,
      `${NS}/keep-2`,
      `${NS}/new-1`,
      `${NS}/new-2`,
    ]);
    console.info(`410 at start: relisted and converged in ${Math.round(convergedMs)} ms after start`);
  });

  it('while running: a watch re-established from a compacted version relists and converges', async () => {
    agent ??= await startAgent(cp, settings());
    const running = agent;
    await msUntilReady(running);
    const listsBefore = await agentLists(running);
    await createConfigMap(cluster.client, NS, 'seen-live');
    await msUntil('seen-live stored', async () =>
      (await storedNames(cp, 'gone', 'ConfigMap')).includes(`${NS}/seen-live`),
    );
    await advanceRevision('while-running');
    await cluster.compactEtcd();
    // The running watch survives the compaction; the restart makes the agent watch again from its
    // last version, which etcd no longer has.
    await cluster.restartApiServer();
    const restarted = performance.now();
    await msUntil('relisted', async () => (await agentLists(running)) > listsBefore, 15_000);
    await msUntil('store equals cluster after the relist', storeMatchesCluster);
    const convergedMs = performance.now() - restarted;
    expect(await agentLists(running)).toBe(listsBefore + 1);
    expect(await storedNames(cp, 'gone', 'ConfigMap')).toEqual([
      `${NS}/keep-1`,
      `${NS}/keep-2`,
      `${NS}/new-1`,
      `${NS}/new-2`,
      `${NS}/seen-live`,
    ]);
    console.info(
      `410 while running: relisted and converged ${Math.round(convergedMs)} ms after the API server was back`,
    );
  });
});
