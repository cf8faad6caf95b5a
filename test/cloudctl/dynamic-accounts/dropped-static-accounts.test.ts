// An agent's hello is the truth about its own (static) accounts: an account it stops listing leaves
// cloudctl's lists and directory, what was cached of it is evicted, and a cloudctl definition of the
// name then takes effect (account source rule 5: from the agent's file to cloudctl). Only the
// agent's own newest hello decides for it: another agent listing the name keeps it. Against a real
// control plane, with test agents on real gRPC sessions.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CacheItem } from '../../../src/proto/index.ts';
import type { TestAgent } from '../harness.ts';
import { DynamicFixture, isAddOf } from './fixture.ts';

let fx: DynamicFixture;

beforeAll(async () => {
  fx = await DynamicFixture.start();
});

afterEach(() => fx.closeAgents());

afterAll(async () => {
  await fx?.close();
});

function configMap(account: string, name: string, snapshotId = ''): CacheItem {
  return {
    event: {
      account,
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
      namespace: 'app',
      name,
      resourceVersion: '7',
      type: 'ADDED',
      object: Buffer.from(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: 'app', resourceVersion: '7' },
        }),
      ),
      snapshotId,
    },
  };
}

/** Names GET /credentials lists (to an admin). */
async function credentialNames(): Promise<string[]> {
  const answer = await fx.root.get('/credentials');
  expect(answer.status).toBe(200);
  return (answer.body as Array<{ name: string }>).map((a) => a.name);
}

/** Caches one object of each account, with a resume version, through the agent's Publish stream. */
async function cacheOne(agent: TestAgent, accounts: string[]): Promise<void> {
  await agent.publish([
    {
      sequence: 1,
      items: accounts.flatMap((account) => [
        configMap(account, `cm-${account}`),
        {
          bookmark: {
            scope: { account, group: '', kind: 'ConfigMap', namespace: 'app' },
            resourceVersion: '8',
          },
        },
      ]),
    },
  ]);
}

describe('an account an agent stops listing', () => {
  it('leaves /credentials, the directory and the account routes, and its cache is evicted', async () => {
    const first = await fx.connect('agent-a', { zone: 'zone-a', statics: ['drop-a', 'drop-b'] });
    await cacheOne(first, ['drop-a', 'drop-b']);
    const { cache } = fx.cp.plane.store;
    expect(await cache.count('drop-b')).toBe(1);
    expect(await credentialNames()).toEqual(expect.arrayContaining(['drop-a', 'drop-b']));

    // The agent restarts with drop-b removed from its file.
    first.close();
    await fx.connect('agent-a', { zone: 'zone-a', statics: ['drop-a'] });

    const names = await credentialNames();
    expect(names).toContain('drop-a');
    expect(names).not.toContain('drop-b');
    expect((await fx.root.get('/credentials/drop-b')).status).toBe(404);
    expect((await fx.root.get('/vendor/accounts/drop-b')).status).toBe(404);
    expect((await fx.root.get('/agents/orchestrator/accounts/drop-b')).status).toBe(404);
    // Its cached objects and resume versions are gone; the account it kept keeps its own.
    expect(await cache.count('drop-b')).toBe(0);
    expect(await cache.resumeVersions(['drop-b'], 0, new Date())).toEqual([]);
    expect(await cache.count('drop-a')).toBe(1);
    const introspected = (await fx.root.get('/cache/introspection')).body as Array<{ account: string }>;
    expect(introspected.map((r) => r.account)).not.toContain('drop-b');
  });

  it('can then be defined in cloudctl and placed on an agent (rule 5), listed once confirmed', async () => {
    const first = await fx.connect('agent-b', { zone: 'zone-b', statics: ['move-a', 'move-b'] });
    expect((await fx.root.post('/credentials', moveB())).status).toBe(409);
    first.close();
    const agent = await fx.connect('agent-b', { zone: 'zone-b', statics: ['move-a'] });

    expect((await fx.root.post('/credentials', moveB())).status).toBe(200);
    const listed = (await fx.root.get('/credentials?expand=true')).body as Array<Record<string, unknown>>;
    expect(listed.find((a) => a.name === 'move-b')).toMatchObject({ source: 'cloudctl' });
    expect((await fx.olaf.post('/vendor/accounts', [{ name: 'move-b', zoneId: 'zone-b' }])).status).toBe(200);
    expect((await fx.olaf.patch('/vendor/accounts', [{ name: 'move-b', state: 'ACTIVE' }])).status).toBe(200);
    await agent.next(isAddOf('move-b'));

    // Sent and not yet confirmed: pending, not among the agents that handle it.
    const sent = await fx.recordUntil('move-b', () => true);
    expect(sent).toMatchObject({
      source: 'cloudctl',
      agents: [],
      pendingAgents: [{ agentId: 'agent-b', caching: true }],
    });
    const asAgentAccount = await fx.root.get('/agents/orchestrator/accounts/move-b');
    expect(asAgentAccount.body).toMatchObject({ agents: [], pendingAgents: [{ agentId: 'agent-b' }] });

    agent.send({ accountStatus: { account: 'move-b', state: 'ACTIVE', message: '' } });
    const active = await fx.recordUntil('move-b', (r) => r.state === 'ACTIVE');
    expect(active).toMatchObject({
      agents: [{ agentId: 'agent-b', caching: true }],
      pendingAgents: [],
    });
    expect((await fx.root.get('/agents/orchestrator/accounts/move-b')).body).toMatchObject({
      source: 'cloudctl',
      agents: [{ agentId: 'agent-b', caching: true }],
      pendingAgents: [],
      status: 'ACTIVE',
    });
    // The cloudctl account the agent caches is in the cache introspection under that agent.
    await agent.publish([{ sequence: 1, items: [configMap('move-b', 'cm-1')] }]);
    const introspected = (await fx.root.get('/cache/introspection')).body as Array<Record<string, unknown>>;
    expect(introspected.find((r) => r.account === 'move-b')).toMatchObject({
      id: 'agent-b/move-b',
      agentId: 'agent-b',
      source: 'cloudctl',
      zoneId: 'zone-b',
      connected: true,
      status: 'ACTIVE',
      totalObjects: 1,
    });
    // Its agent gone, nobody caches it; what is cached stays listed, under no agent.
    agent.close();
    const orphaned = async () =>
      ((await fx.root.get('/cache/introspection')).body as Array<Record<string, unknown>>).find(
        (r) => r.account === 'move-b',
      );
    await expect.poll(orphaned, { timeout: 5000 }).toMatchObject({
      id: '/move-b',
      agentId: '',
      source: 'cloudctl',
      connected: false,
      totalObjects: 1,
    });
  });

  it('leaves no phantom behind when the agent renames it', async () => {
    const first = await fx.connect('agent-c', { zone: 'zone-c', statics: ['old-name'] });
    first.close();
    await fx.connect('agent-c', { zone: 'zone-c', statics: ['new-name'] });
    const names = await credentialNames();
    expect(names).toContain('new-name');
    expect(names).not.toContain('old-name');
    const page = (await fx.root.get('/vendor/accounts?limit=1000')).body as {
      items: Array<{ name: string }>;
    };
    expect(page.items.map((i) => i.name)).not.toContain('old-name');
  });

  it('stays while another agent lists it, now as that agent’s', async () => {
    await fx.connect('agent-b', { zone: 'zone-b', statics: ['shared-1'] });
    // agent-a's hello comes last: the record of shared-1 is agent-a's.
    const a = await fx.connect('agent-a', { zone: 'zone-a', statics: ['shared-1', 'own-a'] });
    expect((await fx.root.get('/credentials/shared-1')).body).toMatchObject({ agentId: 'agent-a' });
    await cacheOne(a, ['shared-1']);
    a.close();
    await fx.connect('agent-a', { zone: 'zone-a', statics: ['own-a'] });
    expect(await credentialNames()).toContain('shared-1');
    expect((await fx.root.get('/credentials/shared-1')).body).toMatchObject({
      source: 'static-agent-config',
      agentId: 'agent-b',
    });
    // agent-b still serves it: what is cached of it stays.
    expect(await fx.cp.plane.store.cache.count('shared-1')).toBe(1);
  });

  it('is decided by the newest hello of the agent, whatever its older sessions said', async () => {
    const older = await fx.connect('agent-c', { zone: 'zone-c', statics: ['rep-a', 'rep-b'] });
    await cacheOne(older, ['rep-b']);
    // A second replica (or the restarted pod before the old one's stream ended) with a new file.
    await fx.connect('agent-c', { zone: 'zone-c', statics: ['rep-a'] });
    expect(await credentialNames()).not.toContain('rep-b');
    expect(await fx.cp.plane.store.cache.count('rep-b')).toBe(0);
    // The older session no longer claims it: nothing routes rep-b's work to it.
    expect(fx.cp.plane.registry.sessionFor('rep-b')).toBeUndefined();
    expect(fx.cp.plane.registry.sessionFor('rep-a')?.agentId).toBe('agent-c');
  });
});

function moveB(): Record<string, unknown> {
  return {
    name: 'move-b',
    type: 'orchestrator',
    orchConfigFile: '/etc/kube/move-b.yaml',
    permissions: { READ: ['dev'], WRITE: ['ops'] },
  };
}

describe('DELETE /agents/{agentId}: retiring an agent gone for good', () => {
  /** DELETE /agents/agent-c once the closed session has ended on the server. */
  async function retireOnceDisconnected() {
    for (let i = 0; i < 100; i++) {
      const answer = await fx.root.delete('/agents/agent-c');
      if (answer.status !== 409) return answer;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('agent-c still counts as connected after 5 s');
  }

  it('refuses a connected agent (409) and a non-admin (403)', async () => {
    await fx.connect('agent-c', { zone: 'zone-c', statics: ['kept-c'] });
    const connected = await fx.root.delete('/agents/agent-c');
    expect(connected.status).toBe(409);
    expect(connected.body.message).toBe(
      "agent agent-c is connected: stop it (uninstall it) first; a connected agent's next hello would bring its accounts back",
    );
    expect((await fx.olaf.delete('/agents/agent-c')).status).toBe(403);
    expect(await credentialNames()).toContain('kept-c');
  });

  it('takes its static accounts out of every list and cache, frees their names, and forgets the agent', async () => {
    const agent = await fx.connect('agent-c', { zone: 'zone-c', statics: ['gone-a', 'gone-b'] });
    await cacheOne(agent, ['gone-a', 'gone-b']);
    const { cache } = fx.cp.plane.store;
    expect(await cache.count('gone-a')).toBe(1);
    agent.close();
    // Away: its accounts stay, ORPHANED, and their names are taken.
    expect((await fx.root.get('/vendor/accounts/gone-a')).body.state).toBe('ORPHANED');

    const retired = await retireOnceDisconnected();
    expect(retired.status).toBe(200);
    expect(retired.body).toEqual({ agentId: 'agent-c', accounts: ['gone-a', 'gone-b'] });
    expect(await credentialNames()).not.toContain('gone-a');
    for (const path of [
      '/credentials/gone-a',
      '/vendor/accounts/gone-b',
      '/agents/orchestrator/accounts/gone-a',
    ])
      expect((await fx.root.get(path)).status, path).toBe(404);
    expect(await cache.count('gone-a')).toBe(0);
    expect(await cache.count('gone-b')).toBe(0);
    const introspected = (await fx.root.get('/cache/introspection')).body as Array<{ account: string }>;
    expect(introspected.map((r) => r.account)).not.toContain('gone-a');
    expect((await fx.cp.plane.store.agents.agents()).map((a) => a.id)).not.toContain('agent-c');
    // The name is free for a cloudctl account.
    expect((await fx.root.post('/credentials', { ...moveB(), name: 'gone-a' })).status).toBe(200);
    // Retired twice: no such agent. Connecting later under the id is a new agent.
    expect((await fx.root.delete('/agents/agent-c')).status).toBe(404);
    await fx.connect('agent-c', { zone: 'zone-c', statics: ['new-c'] });
    expect(await credentialNames()).toEqual(expect.arrayContaining(['gone-a', 'new-c']));
    expect(await credentialNames()).not.toContain('gone-b');
  });
});
