// Where cloudctl's accounts go and who caches them, over real sessions: caching moves when the caching
// agent goes away, a restarted agent gets its accounts back at registration, operations reach an agent
// that holds the account, and variant B subscriptions (patterns, scans, batches, the interceptor).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBatches, added, cachingOf, DynamicFixture, deleted, isAddOf } from './fixture.ts';

let fx: DynamicFixture;

beforeAll(async () => {
  fx = await DynamicFixture.start();
});

afterEach(() => fx.closeAgents());

afterAll(async () => {
  await fx?.close();
});

async function activate(name: string, zoneId?: string): Promise<void> {
  await fx.define(name);
  expect(
    (await fx.root.post('/vendor/accounts', [{ name, ...(zoneId === undefined ? {} : { zoneId }) }])).status,
  ).toBe(200);
  const patched = await fx.root.patch('/vendor/accounts', [{ name, state: 'ACTIVE' }]);
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}

describe('caching', () => {
  it('moves to another agent holding the account within seconds of the caching agent going away', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await activate('cache-moves');
    await a.next(isAddOf('cache-moves'));
    a.send({ accountStatus: { account: 'cache-moves', state: 'ACTIVE', message: '' } });
    const b = await fx.connect('agent-b', { zone: 'zone-b' });
    await b.next(isAddOf('cache-moves'));
    b.send({ accountStatus: { account: 'cache-moves', state: 'ACTIVE', message: '' } });
    expect(cachingOf(a, 'cache-moves')).toEqual([true]);
    expect(cachingOf(b, 'cache-moves')).toEqual([false]);
    await fx.recordUntil('cache-moves', (r) => r.agents.length === 2);

    const killed = Date.now();
    a.cancelSession();
    await b.next((m) => m.message === 'cacheDirectives');
    const tookOver = Date.now() - killed;
    expect(cachingOf(b, 'cache-moves')).toEqual([false, true]);
    const record = await fx.recordUntil('cache-moves', (r) => r.agents.length === 1);
    expect(record).toMatchObject({
      state: 'ACTIVE',
      agents: [{ agentId: 'agent-b', caching: true }],
      lastAssignmentMsg: 'agent agent-b caches the account now',
    });
    expect(tookOver).toBeLessThan(5000);
    // The agents' view of the account says the same.
    expect((await fx.root.get('/agents/orchestrator/accounts/cache-moves')).body).toMatchObject({
      source: 'cloudctl',
      agents: [{ agentId: 'agent-b', caching: true }],
      status: 'ACTIVE',
    });
    // Operations follow: the remaining holder serves them.
    expect(fx.cp.plane.registry.sessionFor('cache-moves')?.agentId).toBe('agent-b');
  });

  it('is ORPHANED when every holder is gone, and a restarted agent gets the account back at registration', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await activate('comes-back', 'zone-a');
    await a.next(isAddOf('comes-back'));
    a.send({ accountStatus: { account: 'comes-back', state: 'ACTIVE', message: '' } });
    await fx.recordUntil('comes-back', (r) => r.state === 'ACTIVE');
    a.cancelSession();
    await fx.recordUntil('comes-back', (r) => r.state === 'ORPHANED' && r.agents.length === 0);

    const restarted = await fx.connect('agent-a', { zone: 'zone-a' });
    await restarted.next(isAddOf('comes-back'));
    expect(cachingOf(restarted, 'comes-back')).toEqual([true]);
    expect((await fx.root.get('/vendor/accounts/comes-back')).body.state).toBe('ACTIVATING');
    restarted.send({ accountStatus: { account: 'comes-back', state: 'ACTIVE', message: '' } });
    await fx.recordUntil('comes-back', (r) => r.state === 'ACTIVE');
  });

  it('tells a reconnecting agent in registered whether it caches the accounts it still holds', async () => {
    const b = await fx.connect('agent-b', { zone: 'zone-b' });
    await activate('still-held');
    await b.next(isAddOf('still-held'));
    b.send({ accountStatus: { account: 'still-held', state: 'ACTIVE', message: '' } });
    await fx.recordUntil('still-held', (r) => r.state === 'ACTIVE');
    // agent-a comes back from a dropped session still holding the account; agent-b caches it.
    const a = await fx.connect('agent-a', { zone: 'zone-a', held: ['still-held'] });
    expect(cachingOf(a, 'still-held')).toEqual([false]);
    expect(added(a)).not.toContain('still-held');
    const record = await fx.recordUntil('still-held', (r) => r.agents.length === 2);
    expect(record.agents).toEqual([
      { agentId: 'agent-a', caching: false },
      { agentId: 'agent-b', caching: true },
    ]);
  });

  it('takes back an account a reconnecting agent may no longer hold', async () => {
    await fx.define('taken-back');
    const a = await fx.connect('agent-a', { zone: 'zone-a', held: ['taken-back'] });
    await a.next((m) => m.message === 'deleteAccounts');
    expect(a.received.find((m) => m.message === 'deleteAccounts')?.deleteAccounts?.names).toEqual([
      'taken-back',
    ]);
    expect(cachingOf(a, 'taken-back')).toEqual([]);
  });
});

describe('definitions', () => {
  it('a changed definition goes to every agent holding the account; a deleted one is taken off them', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await activate('def-changes', 'zone-a');
    await a.next(isAddOf('def-changes'));
    a.send({ accountStatus: { account: 'def-changes', state: 'ACTIVE', message: '' } });
    await fx.recordUntil('def-changes', (r) => r.state === 'ACTIVE');
    const put = await fx.root.put('/credentials', {
      name: 'def-changes',
      type: 'orchestrator',
      orchConfigFile: '/etc/kube/def-changes-v2.yaml',
      permissions: { READ: ['dev'], WRITE: ['ops'] },
    });
    expect(put.status).toBe(200);
    const resent = await a.next(
      (m) =>
        isAddOf('def-changes')(m) &&
        m.addAccounts?.accounts[0]?.definition.toString().includes('-v2') === true,
    );
    expect(resent.addAccounts?.accounts[0]?.cache?.enabled).toBe(true);
    expect((await fx.root.get('/vendor/accounts/def-changes')).body.state).toBe('ACTIVATING');

    expect((await fx.root.delete('/credentials/def-changes')).status).toBe(204);
    await a.next((m) => m.message === 'deleteAccounts');
    expect(deleted(a)).toEqual(['def-changes']);
    expect((await fx.root.get('/vendor/accounts/def-changes')).status).toBe(404);
    expect(await fx.cp.plane.store.dynamicAccounts.registration('def-changes')).toBeUndefined();
  });
});

describe('operations', () => {
  it('go to an agent that holds the account, never to one that failed it', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await activate('ops-account', 'zone-a');
    await a.next(isAddOf('ops-account'));
    a.send({ accountStatus: { account: 'ops-account', state: 'ACTIVE', message: '' } });
    await fx.recordUntil('ops-account', (r) => r.state === 'ACTIVE');
    const result = fx.cp.plane.operations.execute({
      account: 'ops-account',
      type: 'scale',
      payload: { kind: 'Deployment', namespace: 'default', name: 'web', replicas: 3 },
    });
    const sent = await a.next((m) => m.message === 'operation');
    expect(sent.operation?.account).toBe('ops-account');
    await a.report({
      operationId: sent.operation?.id ?? '',
      account: 'ops-account',
      outcome: 'SUCCEEDED',
      result: Buffer.from(JSON.stringify({ replicas: 3 })),
    });
    expect(await result).toEqual({ id: sent.operation?.id, outcome: 'succeeded', result: { replicas: 3 } });
  });
});

describe('subscriptions (variant B)', () => {
  // A control plane of their own: accounts activated above would go to these agents too.
  beforeAll(async () => {
    await fx.close();
    fx = await DynamicFixture.start();
  });

  it('sends matching accounts at registration in batches of scanBatchSize, and new ones at the next scan', async () => {
    for (const n of [1, 2, 3, 4, 5]) await fx.define(`sub-team-${n}`);
    await fx.define('sub-other');
    await fx.define('sub-by-location', { orchConfigFile: 'encryptedFile:k8s!n:fleet-kubeconfig!k:config' });
    const a = await fx.connect('agent-a', {
      zone: 'zone-a',
      dynamic: {
        namePatterns: ['^sub-team-'],
        credentialScanNamePatterns: ['n:fleet-'],
        scanBatchSize: 2,
        scanFrequencySeconds: 1,
        interceptorEnabled: false,
      },
    });
    await a.next(isAddOf('sub-by-location'));
    await a.next(isAddOf('sub-team-5'));
    const first = addBatches(a);
    expect(first.map((batch) => batch.length)).toEqual([2, 2, 2]);
    expect(first.flat().sort()).toEqual([
      'sub-by-location',
      'sub-team-1',
      'sub-team-2',
      'sub-team-3',
      'sub-team-4',
      'sub-team-5',
    ]);
    // Without the interceptor a new account waits for the next scan.
    const created = Date.now();
    await fx.define('sub-team-6');
    await a.next(isAddOf('sub-team-6'), 5000);
    expect(Date.now() - created).toBeGreaterThanOrEqual(150);
    expect(added(a)).not.toContain('sub-other');
    expect(added(a).filter((n) => n === 'sub-team-1')).toHaveLength(1);
    const record = await fx.root.get('/vendor/accounts/sub-team-6');
    expect(record.body).toMatchObject({
      state: 'ACTIVATING',
      zoneId: null,
      // Sent, not yet confirmed by the agent.
      agents: [],
      pendingAgents: [{ agentId: 'agent-a', caching: true }],
    });
  });

  it('with the interceptor, sends an account created on the fly at once', async () => {
    const b = await fx.connect('agent-b', {
      zone: 'zone-b',
      dynamic: { namePatterns: ['^icpt-'], scanFrequencySeconds: 3600, interceptorEnabled: true },
    });
    const c = await fx.connect('agent-c', {
      zone: 'zone-b',
      dynamic: { namePatterns: ['^icpt-'], scanFrequencySeconds: 3600, interceptorEnabled: false },
    });
    await fx.define('icpt-fresh');
    // Well before the next scan, an hour away.
    await b.next(isAddOf('icpt-fresh'), 2000);
    expect(added(b)).toEqual(['icpt-fresh']);
    // Without the interceptor it waits for agent-c's scan; other passes do not send it.
    await fx.cp.plane.placement.place();
    expect(added(c)).toEqual([]);
  });

  it('holds back an account a registration keeps INACTIVE', async () => {
    await fx.define('sub-held-back');
    await fx.root.post('/vendor/accounts', [{ name: 'sub-held-back' }]);
    const a = await fx.connect('agent-a', { zone: 'zone-a', dynamic: { namePatterns: ['^sub-held-'] } });
    await fx.cp.plane.placement.place();
    expect(added(a)).toEqual([]);
  });
});
