// Dynamic accounts end to end: `cloudctl serve` and two `orch-agent run` processes in two zones, on two
// real clusters (the shared one, and one of this file's own), driven through /vendor/accounts and
// /credentials as a platform team would. What the agents did is read back from cloudctl: the account
// records, the namespaces their caches hold, and cloudctl's log of what it sent to which agent.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  type ApiClient as ClusterClient,
  sharedCluster,
  sharedClusterClient,
  startCluster,
} from '../../cluster/index.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { type AgentSpec, AgentsSystem } from './agents-system.ts';

const NS_A = 'dyn-e2e-a';
const NS_B = 'dyn-e2e-b';
const ADMIN = { name: 'root', token: 'token-of-root-e2e-4c2a' };

let dir: string;
let shared: ClusterClient;
let clusterB: Cluster;
let system: AgentsSystem;
let root: ApiClient;
let agentA: AgentSpec;
let agentB: AgentSpec;

// biome-ignore lint/suspicious/noExplicitAny: records are read field by field.
async function recordUntil(name: string, ok: (record: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await root.get(`/vendor/accounts/${name}`);
    if (answer.status === 200 && ok(answer.body)) return answer.body;
    if (Date.now() > deadline)
      throw new Error(
        `account ${name} not as expected within ${timeoutMs} ms: ${JSON.stringify(answer.body)}`,
      );
    await sleep(100);
  }
}

async function until(
  what: string,
  ok: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await ok()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The batches cloudctl sent the agent, in order, as its log says. */
function batchesTo(agentId: string): string[][] {
  return system
    .cloudctlLog('add_accounts sent')
    .filter((line) => line.agentId === agentId)
    .map((line) => line.accounts as string[]);
}

async function define(name: string, kubeconfig: string, namespace: string): Promise<void> {
  const answer = await root.post('/credentials', {
    name,
    type: 'orchestrator',
    orchConfigFile: kubeconfig,
    namespaces: [namespace],
    kinds: ['configMap'],
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

async function namespace(client: ClusterClient, name: string): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  await client.request('POST', `/api/v1/namespaces/${name}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seed' }, data: { from: name } },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dynamic-accounts-e2e-'));
  shared = sharedClusterClient();
  clusterB = await startCluster({ nodes: 0 });
  await namespace(shared, NS_A);
  await namespace(clusterB.client, NS_B);
  system = await AgentsSystem.start(dir, ['agent-a', 'agent-b'], ADMIN);
  root = apiClient(system.url, ADMIN.token);
  const kubeA = sharedCluster().kubeconfigPath;
  await define('zoned-b', clusterB.kubeconfigPath, NS_B);
  await define('everywhere', kubeA, NS_A);
  await define('broken', kubeA, NS_A);
  await define('clash', clusterB.kubeconfigPath, NS_B);
  for (const n of [1, 2, 3, 4, 5]) await define(`scan-${n}`, kubeA, NS_A);
  agentA = {
    id: 'agent-a',
    zone: 'zone-a',
    kubeconfig: kubeA,
    statics: [{ name: 'clash', kubeconfig: kubeA, namespaces: [NS_A] }],
    dynamicAccounts: {
      enabled: true,
      namePatterns: ['^scan-'],
      scanBatchSize: 2,
      scanFrequencySeconds: 2,
      interceptor: false,
    },
  };
  agentB = {
    id: 'agent-b',
    zone: 'zone-b',
    kubeconfig: clusterB.kubeconfigPath,
    statics: [{ name: 'static-b', kubeconfig: clusterB.kubeconfigPath, namespaces: [NS_B] }],
    dynamicAccounts: {
      enabled: true,
      namePatterns: ['^icpt-'],
      scanFrequencySeconds: 3600,
      interceptor: true,
    },
  };
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await clusterB?.stop();
  await shared?.request('DELETE', `/api/v1/namespaces/${NS_A}`);
  await shared?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('before any agent connects', () => {
  it('registers accounts INACTIVE and refuses to activate them with no agent to take them', async () => {
    const posted = await root.post('/vendor/accounts', [
      { name: 'zoned-b', zoneId: 'zone-b' },
      { name: 'everywhere' },
      { name: 'broken', zoneId: 'zone-a' },
      { name: 'clash', zoneId: 'zone-a' },
    ]);
    expect(posted.status).toBe(200);
    expect(posted.body.map((r: { state: string }) => r.state)).toEqual([
      'INACTIVE',
      'INACTIVE',
      'INACTIVE',
      'INACTIVE',
    ]);
    const refused = await root.patch('/vendor/accounts', [{ name: 'everywhere', state: 'ACTIVE' }]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'account everywhere cannot be activated: no connected agent takes dynamic accounts',
    );
  });
});

describe('two agents in two zones on two clusters', () => {
  beforeAll(async () => {
    await Promise.all([system.startAgent(agentA), system.startAgent(agentB)]);
  }, 120_000);

  it('sends a subscribed agent its matching accounts at registration, in batches of its scanBatchSize', async () => {
    await until('the five scan- accounts sent to agent-a', () => batchesTo('agent-a').flat().length >= 5);
    expect(batchesTo('agent-a')).toEqual([['scan-1', 'scan-2'], ['scan-3', 'scan-4'], ['scan-5']]);
    expect(batchesTo('agent-b')).toEqual([]);
    const record = await recordUntil('scan-3', (r) => r.state === 'ACTIVE');
    expect(record).toMatchObject({ zoneId: null, agents: [{ agentId: 'agent-a', caching: true }] });
  }, 60_000);

  it('activates an account pinned to a zone on that zone’s agent only, which caches it', async () => {
    const patched = await root.patch('/vendor/accounts', [{ name: 'zoned-b', state: 'ACTIVE' }]);
    expect(patched.status).toBe(200);
    const record = await recordUntil('zoned-b', (r) => r.state === 'ACTIVE');
    expect(record.agents).toEqual([{ agentId: 'agent-b', caching: true }]);
    expect(record.lastAssignmentMsg).toBe('active on agent agent-b (caching and operations)');
    await until('zoned-b cached from cluster B', async () => {
      const answer = await root.get('/agents/orchestrator/accounts/zoned-b/namespaces');
      return answer.status === 200 && answer.body.includes(NS_B);
    });
    expect(batchesTo('agent-a').flat()).not.toContain('zoned-b');
    // The cluster the agent reached, as it reported it with ACTIVE (a dynamic account has no hello).
    const asAgentAccount = await root.get('/agents/orchestrator/accounts/zoned-b');
    expect(asAgentAccount.body).toMatchObject({
      kubeHost: new URL(clusterB.server).host,
      kubeVersion: expect.stringMatching(/^v1\.\d+\.\d+/),
    });
  }, 60_000);

  it('activates an account without zone on both agents: one caches, the other serves operations only', async () => {
    expect((await root.patch('/vendor/accounts', [{ name: 'everywhere', state: 'ACTIVE' }])).status).toBe(
      200,
    );
    const record = await recordUntil('everywhere', (r) => r.state === 'ACTIVE' && r.agents.length === 2);
    const caching = record.agents.filter((a: { caching: boolean }) => a.caching);
    expect(caching).toHaveLength(1);
    // Each agent was told its part with the account, and took it so.
    for (const { agentId, caching: cachingFlag } of record.agents) {
      await until(`${agentId} assigned everywhere`, () =>
        system.agentLog(agentId, 'dynamic account assigned').some((l) => l.account === 'everywhere'),
      );
      const assigned = system
        .agentLog(agentId, 'dynamic account assigned')
        .find((l) => l.account === 'everywhere');
      expect(assigned?.caching).toBe(cachingFlag);
    }
    await until('everywhere cached', async () => {
      const answer = await root.get('/agents/orchestrator/accounts/everywhere/namespaces');
      return answer.status === 200 && answer.body.includes(NS_A);
    });
  }, 60_000);

  it('moves caching to the other agent when the caching one is killed, and gives the account back when it restarts', async () => {
    const before = (await root.get('/vendor/accounts/everywhere')).body;
    const cacher: string = before.agents.find((a: { caching: boolean }) => a.caching).agentId;
    const other = cacher === 'agent-a' ? 'agent-b' : 'agent-a';
    await system.killAgent(cacher);
    const killed = Date.now();
    await recordUntil(
      'everywhere',
      (r) => r.agents.length === 1 && r.agents[0].agentId === other && r.agents[0].caching,
    );
    const tookOverMs = Date.now() - killed;
    console.info(`caching of everywhere moved from ${cacher} to ${other} ${tookOverMs} ms after the kill`);
    // The session ends when the killed process's connection drops; then the handover is one pass.
    expect(tookOverMs).toBeLessThan(20_000);

    await system.startAgent(cacher === 'agent-a' ? agentA : agentB);
    const back = await recordUntil('everywhere', (r) => r.agents.length === 2 && r.state === 'ACTIVE');
    expect(back.agents).toContainEqual({ agentId: cacher, caching: false });
    expect(back.agents).toContainEqual({ agentId: other, caching: true });

    // The restarted agent serves operations only; a deploy through the account reaches it (the newest
    // session holding the account) and lands in the cluster.
    const started = await root.post('/ops', [
      {
        deployManifest: {
          account: 'everywhere',
          moniker: { app: 'dyn' },
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'deployed-through-everywhere', namespace: NS_A },
              data: { by: 'operations-only agent' },
            },
          ],
        },
      },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    await until('the deploy task completed', async () => {
      const task = await root.get(`/task/${started.body.id}`);
      return task.status === 200 && task.body.status.completed === true;
    });
    expect((await root.get(`/task/${started.body.id}`)).body.status.failed).toBe(false);
    expect(
      // ConfigMaps are versioned, as Spinnaker deploys them.
      (await shared.request('GET', `/api/v1/namespaces/${NS_A}/configmaps/deployed-through-everywhere-v000`))
        .status,
    ).toBe(200);
    expect(await system.agentMetrics(cacher)).toMatch(
      /orch_agent_operations_total\{[^}]*type="deploy"[^}]*\} 1/,
    );
    expect(await system.agentMetrics(other)).not.toMatch(/orch_agent_operations_total\{[^}]*type="deploy"/);
  }, 120_000);

  it("is FAILED with the agent's own words when the agent cannot read the cluster configuration", async () => {
    const missing = join(dir, 'no-such-kubeconfig.yaml');
    const patched = await root.patch('/vendor/accounts', [
      { name: 'broken', state: 'ACTIVE', orchConfigFile: missing },
    ]);
    expect(patched.status).toBe(200);
    const record = await recordUntil('broken', (r) => r.state === 'FAILED');
    expect(record.lastAssignmentMsg).toMatch(/^agent agent-a failed to add the account: /);
    expect(record.lastAssignmentMsg).toContain(missing);
    expect(record.agents).toEqual([]);
  }, 60_000);

  it("leaves an agent's same-named static account alone and says so", async () => {
    expect((await root.patch('/vendor/accounts', [{ name: 'clash', state: 'ACTIVE' }])).status).toBe(200);
    const record = await recordUntil('clash', (r) => r.lastAssignmentMsg !== null);
    expect(record).toMatchObject({
      source: 'static-agent-config',
      agents: [{ agentId: 'agent-a', caching: true }],
      lastAssignmentMsg:
        "agent agent-a keeps its own static account clash: the agent's definition wins over cloudctl's",
    });
    expect(batchesTo('agent-a').flat()).not.toContain('clash');
    // Its cache is the agent's cluster (the shared one), not cloudctl's definition (cluster B).
    await until('clash cached from the shared cluster', async () => {
      const answer = await root.get('/agents/orchestrator/accounts/clash/namespaces');
      return answer.status === 200 && answer.body.includes(NS_A);
    });
    expect((await root.get('/agents/orchestrator/accounts/clash/namespaces')).body).not.toContain(NS_B);
  }, 60_000);

  it('activates an account whose cluster configuration is an encryptedFile: reference to a Secret', async () => {
    const kubeconfig = await readFile(clusterB.kubeconfigPath, 'utf8');
    await shared.request('POST', `/api/v1/namespaces/${NS_A}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'cluster-b-kubeconfig' },
        data: { config: Buffer.from(kubeconfig).toString('base64') },
      },
    });
    const reference = `encryptedFile:k8s!n:cluster-b-kubeconfig!k:config!ns:${NS_A}`;
    await define('secret-kube', reference, NS_B);
    expect((await root.post('/vendor/accounts', [{ name: 'secret-kube', zoneId: 'zone-a' }])).status).toBe(
      200,
    );
    expect((await root.patch('/vendor/accounts', [{ name: 'secret-kube', state: 'ACTIVE' }])).status).toBe(
      200,
    );
    const record = await recordUntil('secret-kube', (r) => r.state === 'ACTIVE');
    expect(record.agents).toEqual([{ agentId: 'agent-a', caching: true }]);
    expect(record.config.orchConfigFile).toBe(reference);
    await until('secret-kube cached from cluster B', async () => {
      const answer = await root.get('/agents/orchestrator/accounts/secret-kube/namespaces');
      return answer.status === 200 && answer.body.includes(NS_B);
    });
    // The resolved configuration never comes back: not in the record, not in the agent's words.
    const text = JSON.stringify((await root.get('/vendor/accounts/secret-kube')).body);
    expect(text).not.toContain(clusterB.adminToken);
    expect(text).not.toContain(clusterB.server);
  }, 60_000);

  it('sends a new matching account at the next scan without the interceptor, and at once with it', async () => {
    const kubeA = sharedCluster().kubeconfigPath;
    await define('scan-6', kubeA, NS_A);
    const scanned = await until('scan-6 sent at a scan', () =>
      batchesTo('agent-a').flat().includes('scan-6'),
    );
    console.info(`scan-6 reached agent-a ${scanned} ms after POST /credentials (scans every 2 s)`);
    await define('icpt-1', clusterB.kubeconfigPath, NS_B);
    // agent-b scans once an hour: only the interceptor can have sent it.
    const intercepted = await until(
      'icpt-1 sent by the interceptor',
      () => batchesTo('agent-b').flat().includes('icpt-1'),
      10_000,
    );
    console.info(`icpt-1 reached agent-b ${intercepted} ms after POST /credentials (interceptor)`);
    expect(batchesTo('agent-a').flat()).not.toContain('icpt-1');
    await recordUntil('icpt-1', (r) => r.state === 'ACTIVE');
  }, 60_000);

  it('removes an account from its agent on DELETE, leaving it registered and INACTIVE', async () => {
    const answer = await root.delete('/vendor/accounts/zoned-b');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ state: 'INACTIVE', agents: [] });
    const sentTo = (agentId: string) =>
      system
        .cloudctlLog('delete_accounts sent')
        .filter((l) => l.agentId === agentId)
        .map((l) => l.accounts);
    await until('delete_accounts logged', () => sentTo('agent-b').length > 0);
    expect(sentTo('agent-b')).toEqual([['zoned-b']]);
    await until('agent-b dropped zoned-b', () =>
      system.agentLog('agent-b', 'dynamic account removed').some((l) => l.account === 'zoned-b'),
    );
    const removed = await root.delete('/vendor/accounts/static-b');
    expect(removed.status).toBe(400);
    expect(removed.body.message).toContain('which cloudctl never moves or removes');
    expect((await root.get('/vendor/accounts/static-b')).body.agents).toEqual([
      { agentId: 'agent-b', caching: true },
    ]);
  }, 60_000);

  it('lists every account, static and dynamic, by name', async () => {
    const answer = await root.get('/vendor/accounts');
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((r: { name: string; source: string }) => `${r.name}:${r.source}`)).toEqual([
      'broken:cloudctl',
      'clash:static-agent-config',
      'everywhere:cloudctl',
      'icpt-1:cloudctl',
      'scan-1:cloudctl',
      'scan-2:cloudctl',
      'scan-3:cloudctl',
      'scan-4:cloudctl',
      'scan-5:cloudctl',
      'scan-6:cloudctl',
      'secret-kube:cloudctl',
      'static-b:static-agent-config',
      'zoned-b:cloudctl',
    ]);
    expect(answer.body).toMatchObject({ page: 1, limit: 100, total: 13 });
  });
});
