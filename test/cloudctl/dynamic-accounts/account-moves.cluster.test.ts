// Account source rule 5 end to end: an account is moved from an agent's config file to cloudctl.
// `cloudctl serve` and one `orch-agent run` process on the shared cluster; the agent runs with the
// downward API variables of a Deployment's pod and no zone given, so it reports the spec's default
// zone `<deployment>_<namespace>`. The agent restarts with one account dropped from its file and
// another renamed: both leave cloudctl, the dropped one's cache is evicted, and the dropped one is
// then defined in cloudctl and placed on the agent by that zone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { type AgentSpec, AgentsSystem, type StaticAccount } from './agents-system.ts';

const NS = 'acct-moves-e2e';
const ADMIN = { name: 'root', token: 'token-of-root-moves-7b1d' };
/** What a pod of Deployment `orch-agent` in namespace `spin` knows of itself. */
const POD = {
  POD_NAME: 'orch-agent-7d9c5b8f6c-x2k4q',
  POD_NAMESPACE: 'spin',
  POD_TEMPLATE_HASH: '7d9c5b8f6c',
};
const ZONE = 'orch-agent_spin';

let dir: string;
let shared: ClusterClient;
let system: AgentsSystem;
let root: ApiClient;

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s; last ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

function agent(statics: readonly string[]): AgentSpec {
  const kubeconfig = sharedCluster().kubeconfigPath;
  const account = (name: string): StaticAccount => ({ name, kubeconfig, namespaces: [NS] });
  return {
    id: 'agent-m',
    zone: '',
    kubeconfig,
    statics: statics.map(account),
    dynamicAccounts: { enabled: true, interceptor: false },
    env: POD,
  };
}

async function credentialNames(): Promise<string[]> {
  return ((await root.get('/credentials')).body as Array<{ name: string }>).map((a) => a.name);
}

async function namespacesOf(account: string): Promise<unknown> {
  return (await root.get(`/agents/orchestrator/accounts/${account}/namespaces`)).body;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'account-moves-e2e-'));
  shared = sharedClusterClient();
  await shared.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await shared.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seed' }, data: { from: NS } },
  });
  system = await AgentsSystem.start(dir, ['agent-m'], ADMIN);
  root = apiClient(system.url, ADMIN.token);
});

afterAll(async () => {
  await system?.stop();
  await shared?.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('moving an account from an agent file to cloudctl (rule 5)', () => {
  it('drops it and a renamed one at the restart, evicts its cache, then places cloudctl’s definition', async () => {
    await system.startAgent(agent(['mv-a', 'mv-b', 'mv-old']));
    expect(await credentialNames()).toEqual(expect.arrayContaining(['mv-a', 'mv-b', 'mv-old']));
    await until(
      'mv-b cached',
      () => namespacesOf('mv-b'),
      (ns) => Array.isArray(ns) && ns.includes(NS),
    );
    // The agent computed its zone from its pod's name and namespace and said it in hello.
    const introspected = (await root.get('/cache/introspection')).body as Array<Record<string, unknown>>;
    expect(introspected.find((r) => r.account === 'mv-b')).toMatchObject({
      agentId: 'agent-m',
      zoneId: ZONE,
    });
    const definition = {
      name: 'mv-b',
      type: 'orchestrator',
      orchConfigFile: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['configMap'],
    };
    const clash = await root.post('/credentials', definition);
    expect(clash.status).toBe(409);

    // mv-b deleted from the agent's file, mv-old renamed mv-new; the agent restarts.
    await system.killAgent('agent-m');
    await system.startAgent(agent(['mv-a', 'mv-new']));
    const names = await until('the restart is registered', credentialNames, (n) => n.includes('mv-new'));
    expect(names).toContain('mv-a');
    expect(names).not.toContain('mv-b');
    expect(names).not.toContain('mv-old');
    expect((await root.get('/vendor/accounts/mv-old')).status).toBe(404);
    expect((await root.get('/agents/orchestrator/accounts/mv-b')).status).toBe(404);

    // Now cloudctl's definition takes: created, with nothing cached of the agent's old account.
    const created = await root.post('/credentials', definition);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(await namespacesOf('mv-b')).toEqual([]);
    expect((await root.post('/vendor/accounts', [{ name: 'mv-b', zoneId: ZONE }])).status).toBe(200);
    const activated = await root.patch('/vendor/accounts', [{ name: 'mv-b', state: 'ACTIVE' }]);
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    const record = await until(
      'mv-b active on the agent',
      async () => (await root.get('/vendor/accounts/mv-b')).body,
      (r) => (r as { state?: string }).state === 'ACTIVE',
    );
    expect(record).toMatchObject({
      source: 'cloudctl',
      zoneId: ZONE,
      agents: [{ agentId: 'agent-m', caching: true }],
      pendingAgents: [],
    });
    // The agent watches it as a cloudctl account: cached again, and introspected as such.
    await until(
      'mv-b cached again',
      () => namespacesOf('mv-b'),
      (ns) => Array.isArray(ns) && ns.includes(NS),
    );
    const again = (await root.get('/cache/introspection')).body as Array<Record<string, unknown>>;
    expect(again.find((r) => r.account === 'mv-b')).toMatchObject({
      agentId: 'agent-m',
      source: 'cloudctl',
      zoneId: ZONE,
      connected: true,
    });
    expect(again.map((r) => r.account)).not.toContain('mv-old');
  });
});
