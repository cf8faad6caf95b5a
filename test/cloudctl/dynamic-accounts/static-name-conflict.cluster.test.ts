// Rule 2 end to end (agent spec, account source rules): a name an agent defines in its own config is that
// agent's alone. cloudctl and two real agents on the shared cluster: cloudctl's account `dual` (namespace
// rule2-d) is placed on agent-d, which caches it; then agent-s comes with a static `dual` of its own
// (namespace rule2-s). agent-d must drop it, the cache must hold agent-s's objects only, and the conflict
// must be visible; when agent-s leaves the name out again, cloudctl's definition goes back to agent-d.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { type AgentSpec, AgentsSystem } from './agents-system.ts';

const NS_D = 'rule2-d';
const NS_S = 'rule2-s';
const ADMIN = { name: 'root', token: 'token-of-root-rule2-77f1' };

let dir: string;
let shared: ClusterClient;
let system: AgentsSystem;
let root: ApiClient;
let agentD: AgentSpec;
let agentS: AgentSpec;

async function until(what: string, ok: () => Promise<boolean> | boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The namespaces cloudctl's cache holds for the account. */
async function cachedNamespaces(): Promise<string[]> {
  const answer = await root.get('/agents/orchestrator/accounts/dual/namespaces');
  return answer.status === 200 ? answer.body : [];
}

async function configMap(namespace: string, name: string): Promise<void> {
  await shared.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { from: namespace } },
  });
}

/** The account names cloudctl's log says it told the agent to drop. */
function deletesTo(agentId: string): string[] {
  return system
    .cloudctlLog('delete_accounts sent')
    .filter((line) => line.agentId === agentId)
    .flatMap((line) => line.accounts as string[]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'static-name-conflict-'));
  shared = sharedClusterClient();
  for (const namespace of [NS_D, NS_S]) {
    await shared.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    await configMap(namespace, 'seed');
  }
  system = await AgentsSystem.start(dir, ['agent-d', 'agent-s'], ADMIN);
  root = apiClient(system.url, ADMIN.token);
  const kubeconfig = sharedCluster().kubeconfigPath;
  agentD = {
    id: 'agent-d',
    zone: 'zone-d',
    kubeconfig,
    statics: [],
    dynamicAccounts: { enabled: true, scanFrequencySeconds: 3600, interceptor: false },
  };
  agentS = {
    id: 'agent-s',
    zone: 'zone-s',
    kubeconfig,
    statics: [{ name: 'dual', kubeconfig, namespaces: [NS_S] }],
    // It takes dynamic accounts too: its own definition still wins over cloudctl's.
    dynamicAccounts: { enabled: true, scanFrequencySeconds: 3600, interceptor: false },
  };
  const defined = await root.post('/credentials', {
    name: 'dual',
    type: 'orchestrator',
    orchConfigFile: kubeconfig,
    namespaces: [NS_D],
    kinds: ['configMap'],
  });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  expect((await root.post('/vendor/accounts', [{ name: 'dual' }])).status).toBe(200);
  await system.startAgent(agentD);
  expect((await root.patch('/vendor/accounts', [{ name: 'dual', state: 'ACTIVE' }])).status).toBe(200);
  await until('dual cached by agent-d', async () => (await cachedNamespaces()).includes(NS_D));
}, 180_000);

afterAll(async () => {
  await system?.stop();
  for (const namespace of [NS_D, NS_S]) await shared?.request('DELETE', `/api/v1/namespaces/${namespace}`);
  await shared?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an agent that comes to define a name cloudctl placed elsewhere', () => {
  beforeAll(async () => {
    await system.startAgent(agentS);
  }, 120_000);

  it('takes it from the other agent: agent-d is told to drop it, and the cache holds agent-s objects only', async () => {
    await until('agent-d told to drop dual', () => deletesTo('agent-d').includes('dual'));
    await until('the cache holds rule2-s only', async () => {
      const namespaces = await cachedNamespaces();
      return namespaces.includes(NS_S) && !namespaces.includes(NS_D);
    });
    // agent-d writes no more: a change in its namespace never reaches the cache.
    await configMap(NS_D, 'after-the-handover');
    await sleep(3_000);
    expect(await cachedNamespaces()).toEqual([NS_S]);
    expect(system.agentLog('agent-d', 'dynamic account removed').map((l) => l.account)).toContain('dual');
  }, 90_000);

  it('says so: the record and the cache introspection name both definitions and the winner', async () => {
    const record = (await root.get('/vendor/accounts/dual')).body;
    expect(record).toMatchObject({
      source: 'static-agent-config',
      agents: [{ agentId: 'agent-s', caching: true }],
      conflict: {
        winner: { source: 'static-agent-config', agentId: 'agent-s' },
        overridden: { source: 'cloudctl' },
      },
    });
    const introspection = (await root.get('/cache/introspection')).body as Array<Record<string, unknown>>;
    const dual = introspection.filter((entry) => entry.account === 'dual');
    expect(dual.map((entry) => [entry.agentId, entry.source, entry.overrides])).toEqual([
      ['agent-s', 'static-agent-config', 'cloudctl'],
    ]);
    const warnings = system
      .cloudctlLog(
        "account dual is defined through the API and in agent agent-s's config file: the agent's definition wins (rule 2), so cloudctl's is sent to no agent",
      )
      .filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
  });

  it('gives the name back to cloudctl when the agent leaves it out of its config', async () => {
    await system.killAgent('agent-s');
    await system.startAgent({ ...agentS, statics: [] });
    await until('dual cached by agent-d again, rule2-d only', async () => {
      const namespaces = await cachedNamespaces();
      return namespaces.includes(NS_D) && !namespaces.includes(NS_S);
    });
    const record = (await root.get('/vendor/accounts/dual')).body;
    expect(record).toMatchObject({ source: 'cloudctl', conflict: null });
    // Both agents take dynamic accounts, so both hold cloudctl's copy now; agent-d still caches it alone.
    expect(record.agents.filter((a: { caching: boolean }) => a.caching)).toEqual([
      { agentId: 'agent-d', caching: true },
    ]);
  }, 120_000);
});
