// Issue 5, acceptance 1 and 3: an agent restarted within `maxResumableResourceAgeMs` resumes every
// scope from the control plane's resume points without a single LIST, and gets every change made
// while it was down; an API server restart under a running agent loses nothing. A private cluster,
// so the API server's LIST counter counts only this file's requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type Cluster, startCluster } from '../../cluster/index.ts';
import {
  agentLists,
  apiServerLists,
  configMap,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  msUntilReady,
  msUntilStored,
  must,
  type RunningAgent,
  startAgent,
  stored,
  storedNames,
} from './watch-fixture.ts';

const NS = 'resume';
let cluster: Cluster;
let cp: TestControlPlane;
let agent: RunningAgent | undefined;

const settings = () => ({
  orchestrator: {
    accounts: [
      {
        name: 'resume',
        orchConfigFile: cluster.kubeconfigPath,
        namespaces: [NS],
        kinds: ['configMap', 'secret'],
        maxResumableResourceAgeMs: 60_000,
      },
    ],
  },
});

beforeAll(async () => {
  [cluster, cp] = await Promise.all([startCluster({ nodes: 0 }), startTestControlPlane()]);
  await createNamespace(cluster.client, NS, ['a', 'b', 'c']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await cluster?.stop();
});

describe('resuming after a restart of the agent', () => {
  it('watches from the stored resume points without listing, and gets every change made while it was down', async () => {
    agent = await startAgent(cp, settings());
    await msUntilReady(agent);
    await msUntilStored(cp, 'resume', 'ConfigMap', [`${NS}/a`, `${NS}/b`, `${NS}/c`]);

    // A change just before the stop, seen live: the stop must record a resume point past it.
    const lastSeen = await createConfigMap(cluster.client, NS, 'just-before-stop');
    await msUntil(
      'just-before-stop stored',
      async () => (await stored(cp, 'resume', 'ConfigMap', NS, 'just-before-stop')) !== undefined,
    );
    await agent.stop();
    agent = undefined;
    const points = await cp.plane.store.cache.resumeVersions(['resume'], 0, new Date());
    const configMaps = points.find((p) => p.scope.kind === 'ConfigMap' && p.scope.namespace === NS);
    expect(BigInt(configMaps?.resourceVersion ?? '0')).toBeGreaterThanOrEqual(BigInt(lastSeen));

    // While the agent is down: a create, an update and a delete.
    await createConfigMap(cluster.client, NS, 'while-down');
    must(
      await cluster.client.request('PUT', `/api/v1/namespaces/${NS}/configmaps/a`, {
        body: configMap(NS, 'a', { n: 'updated-while-down' }),
      }),
    );
    await deleteObject(cluster.client, `/api/v1/namespaces/${NS}/configmaps/b`);

    const listsBefore = {
      configmaps: await apiServerLists(cluster.client, 'configmaps'),
      secrets: await apiServerLists(cluster.client, 'secrets'),
    };
    agent = await startAgent(cp, settings());
    await msUntilReady(agent);
    const caughtUpMs = await msUntil('downtime changes stored', async () => {
      const names = await storedNames(cp, 'resume', 'ConfigMap');
      const a = await stored(cp, 'resume', 'ConfigMap', NS, 'a');
      return (
        names.includes(`${NS}/while-down`) &&
        !names.includes(`${NS}/b`) &&
        JSON.stringify(a?.body).includes('updated-while-down')
      );
    });
    const listsAfter = {
      configmaps: await apiServerLists(cluster.client, 'configmaps'),
      secrets: await apiServerLists(cluster.client, 'secrets'),
    };

    expect(listsAfter.configmaps - listsBefore.configmaps).toBe(0);
    expect(listsAfter.secrets - listsBefore.secrets).toBe(0);
    // Nor a streaming list (a watch with initial events, which the API server does not count as LIST).
    expect(await agentLists(agent)).toBe(0);
    expect(await storedNames(cp, 'resume', 'ConfigMap')).toEqual([
      `${NS}/a`,
      `${NS}/c`,
      `${NS}/just-before-stop`,
      `${NS}/while-down`,
    ]);
    expect(caughtUpMs).toBeLessThan(2000);
    console.info(
      `resume: LIST delta configmaps ${listsAfter.configmaps - listsBefore.configmaps}, secrets ${listsAfter.secrets - listsBefore.secrets}; downtime changes stored ${Math.round(caughtUpMs)} ms after ready`,
    );
  });
});

describe('an API server restart under a running agent', () => {
  it('loses nothing: changes made right after the restart reach the store', async () => {
    agent ??= await startAgent(cp, settings());
    await msUntilReady(agent);
    await cluster.restartApiServer();
    const restarted = performance.now();
    await createConfigMap(cluster.client, NS, 'after-restart');
    must(
      await cluster.client.request('PUT', `/api/v1/namespaces/${NS}/configmaps/c`, {
        body: configMap(NS, 'c', { n: 'updated-after-restart' }),
      }),
    );
    await deleteObject(cluster.client, `/api/v1/namespaces/${NS}/configmaps/just-before-stop`);
    await msUntil(
      'changes after the restart stored',
      async () => {
        const names = await storedNames(cp, 'resume', 'ConfigMap');
        const c = await stored(cp, 'resume', 'ConfigMap', NS, 'c');
        return (
          names.includes(`${NS}/after-restart`) &&
          !names.includes(`${NS}/just-before-stop`) &&
          JSON.stringify(c?.body).includes('updated-after-restart')
        );
      },
      15_000,
    );
    const ms = performance.now() - restarted;
    expect(await storedNames(cp, 'resume', 'ConfigMap')).toEqual([
      `${NS}/a`,
      `${NS}/after-restart`,
      `${NS}/c`,
      `${NS}/while-down`,
    ]);
    console.info(`API server restart: changes made after it stored within ${Math.round(ms)} ms`);
  });
});
