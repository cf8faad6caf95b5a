// Issue 5, acceptance 4 and 7: one agent streams two accounts on two clusters at once, each under its
// own name; accounts the control plane assigns at run time become ACTIVE and stream, or FAILED with
// the cause when their cluster cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import {
  type ApiClient,
  type Cluster,
  sharedCluster,
  sharedClusterClient,
  startCluster,
} from '../../cluster/index.ts';
import {
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  msUntilReady,
  msUntilStored,
  type RunningAgent,
  startAgent,
  storedNames,
  unreachableKubeconfig,
} from './watch-fixture.ts';

const SHARED_NS = 'accounts-shared';
const PRIVATE_NS = 'accounts-private';
const DYNAMIC_NS = 'accounts-dynamic';
let cluster: Cluster;
let shared: ApiClient;
let cp: TestControlPlane;
let agent: RunningAgent;

beforeAll(async () => {
  shared = sharedClusterClient();
  [cluster, cp] = await Promise.all([startCluster({ nodes: 0 }), startTestControlPlane()]);
  await Promise.all([
    createNamespace(shared, SHARED_NS, ['on-shared']),
    createNamespace(cluster.client, PRIVATE_NS, ['on-private']),
    createNamespace(cluster.client, DYNAMIC_NS, ['on-dynamic']),
  ]);
  agent = await startAgent(cp, {
    dynamicAccounts: { enabled: true },
    orchestrator: {
      accounts: [
        {
          name: 'shared',
          orchConfigFile: sharedCluster().kubeconfigPath,
          namespaces: [SHARED_NS],
          kinds: ['configMap'],
        },
        {
          name: 'private',
          orchConfigFile: cluster.kubeconfigPath,
          namespaces: [PRIVATE_NS],
          kinds: ['configMap'],
        },
      ],
    },
  });
  await msUntilReady(agent);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await cluster?.stop();
  await deleteObject(shared, `/api/v1/namespaces/${SHARED_NS}`);
  await shared?.close();
});

describe('accounts', () => {
  it('two accounts on two clusters stream at once, each under its own name', async () => {
    await msUntilStored(cp, 'shared', 'ConfigMap', [`${SHARED_NS}/on-shared`]);
    await msUntilStored(cp, 'private', 'ConfigMap', [`${PRIVATE_NS}/on-private`]);
    await Promise.all([
      createConfigMap(shared, SHARED_NS, 'live-shared'),
      createConfigMap(cluster.client, PRIVATE_NS, 'live-private'),
    ]);
    const ms = await msUntil('both live changes stored', async () => {
      const [onShared, onPrivate] = await Promise.all([
        storedNames(cp, 'shared', 'ConfigMap'),
        storedNames(cp, 'private', 'ConfigMap'),
      ]);
      return (
        onShared.includes(`${SHARED_NS}/live-shared`) && onPrivate.includes(`${PRIVATE_NS}/live-private`)
      );
    });
    expect(await storedNames(cp, 'shared', 'ConfigMap')).toEqual([
      `${SHARED_NS}/live-shared`,
      `${SHARED_NS}/on-shared`,
    ]);
    expect(await storedNames(cp, 'private', 'ConfigMap')).toEqual([
      `${PRIVATE_NS}/live-private`,
      `${PRIVATE_NS}/on-private`,
    ]);
    console.info(`two clusters: live changes on both stored within ${Math.round(ms)} ms`);
  });

  it('an account assigned at run time with a reachable cluster becomes ACTIVE and streams', async () => {
    const assignments = cp.plane.accounts;
    const started = performance.now();
    expect(
      await assignments.add('agent-1', [
        {
          name: 'dynamic',
          definition: {
            orchConfigFile: cluster.kubeconfigPath,
            namespaces: [DYNAMIC_NS],
            kinds: ['configMap'],
          },
        },
      ]),
    ).toBe(true);
    await msUntil(
      'dynamic ACTIVE',
      async () => (await cp.plane.store.agents.account('dynamic'))?.status === 'ACTIVE',
    );
    await msUntil('dynamic synced', async () => (await storedNames(cp, 'dynamic', 'ConfigMap')).length > 0);
    expect(await cp.plane.store.agents.account('dynamic')).toMatchObject({
      agentId: 'agent-1',
      status: 'ACTIVE',
    });
    expect(await storedNames(cp, 'dynamic', 'ConfigMap')).toEqual([`${DYNAMIC_NS}/on-dynamic`]);
    await createConfigMap(cluster.client, DYNAMIC_NS, 'live-dynamic');
    await msUntil('live change of the dynamic account stored', async () =>
      (await storedNames(cp, 'dynamic', 'ConfigMap')).includes(`${DYNAMIC_NS}/live-dynamic`),
    );
    // The static accounts kept streaming through it: the uplink was not refused for a foreign account.
    await createConfigMap(shared, SHARED_NS, 'after-dynamic');
    await msUntil('static account still streams', async () =>
      (await storedNames(cp, 'shared', 'ConfigMap')).includes(`${SHARED_NS}/after-dynamic`),
    );
    console.info(
      `dynamic account: ACTIVE and streaming ${Math.round(performance.now() - started)} ms after add_accounts`,
    );
  });

  it('an account assigned at run time with an unreachable cluster is reported FAILED with the cause', async () => {
    const assignments = cp.plane.accounts;
    expect(
      await assignments.add('agent-1', [
        {
          name: 'unreachable',
          definition: { orchConfigFile: await unreachableKubeconfig(), kinds: ['configMap'] },
        },
      ]),
    ).toBe(true);
    await msUntil(
      'unreachable FAILED',
      async () => (await cp.plane.store.agents.account('unreachable'))?.status === 'FAILED',
    );
    const account = await cp.plane.store.agents.account('unreachable');
    expect(account?.statusMessage).toContain('ECONNREFUSED');
    expect(agent.runtime.accounts.status('unreachable')?.state).toBe('FAILED');
    console.info(`unreachable account: FAILED, "${account?.statusMessage}"`);
  });
});
