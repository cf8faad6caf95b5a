// The dynamic accounts interface against a real control plane over real HTTP, with test agents on
// real gRPC sessions: the spec's rules 1-5, the states an account goes through, and what the agents
// are sent. Each test defines its own accounts, so the tests do not depend on one another.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { added, cachingOf, DynamicFixture, deleted, isAddOf } from './fixture.ts';

let fx: DynamicFixture;

beforeAll(async () => {
  fx = await DynamicFixture.start();
});

afterEach(() => fx.closeAgents());

afterAll(async () => {
  await fx?.close();
});

describe('POST /vendor/accounts (register)', () => {
  it('registers cloudctl accounts INACTIVE with their zone and cluster configuration, as a record', async () => {
    await fx.define('reg-one');
    const answer = await fx.olaf.post('/vendor/accounts', [
      {
        name: 'reg-one',
        zoneId: 'zone-a',
        orchconfigFile: 'encryptedFile:k8s!n:kubeconfig-one!k:config!ns:spinnaker',
        lastAssignmnentMsg: 'whatever a client copied back',
      },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      {
        name: 'reg-one',
        type: 'orchestrator',
        source: 'cloudctl',
        config: expect.objectContaining({
          name: 'reg-one',
          orchConfigFile: 'encryptedFile:k8s!n:kubeconfig-one!k:config!ns:spinnaker',
        }),
        zoneId: 'zone-a',
        agents: [],
        pendingAgents: [],
        lastAssignmentMsg: null,
        state: 'INACTIVE',
        conflict: null,
      },
    ]);
    expect(answer.body[0]).not.toHaveProperty('lastAssignmnentMsg');
    expect((await fx.root.get('/vendor/accounts/reg-one')).body).toEqual(answer.body[0]);
  });

  it('answers 400 naming an account not defined in cloudctl, and registers none of the request', async () => {
    await fx.define('reg-good');
    await fx.connect('agent-a', { zone: 'zone-a', statics: ['reg-static'] });
    const unknown = await fx.root.post('/vendor/accounts', [{ name: 'reg-good' }, { name: 'reg-nowhere' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      'account reg-nowhere is not defined in cloudctl (POST /credentials defines it)',
    );
    expect((await fx.root.get('/vendor/accounts/reg-good')).body.state).toBe('INACTIVE');
    expect((await fx.root.get('/vendor/accounts/reg-good')).body.zoneId).toBeNull();
    const fromAgent = await fx.root.post('/vendor/accounts', [{ name: 'reg-static' }]);
    expect(fromAgent.status).toBe(400);
    expect(fromAgent.body.message).toContain("static account of agent agent-a's config file");
  });

  it('answers 400 for a state other than INACTIVE, pointing at PATCH, and registers none of the request', async () => {
    await fx.define('reg-state');
    const active = await fx.root.post('/vendor/accounts', [
      { name: 'reg-state', zoneId: 'zone-x', state: 'ACTIVE' },
    ]);
    expect(active.status).toBe(400);
    expect(active.body.message).toBe(
      'account reg-state: state "ACTIVE" cannot be set by POST, which registers accounts INACTIVE; PATCH /vendor/accounts with state ACTIVE activates them',
    );
    expect((await fx.root.get('/vendor/accounts/reg-state')).body.zoneId).toBeNull();
    const copied = await fx.root.post('/vendor/accounts', [{ name: 'reg-state', state: 'INACTIVE' }]);
    expect(copied.status).toBe(200);
    expect(copied.body[0].state).toBe('INACTIVE');
  });

  it('refuses a cluster configuration given inline, without echoing it', async () => {
    await fx.define('reg-inline');
    const kubeconfig = 'apiVersion: v1\nclusters:\n- cluster: {token: s3cr3t-value}\n';
    const answer = await fx.root.post('/vendor/accounts', [
      { name: 'reg-inline', orchConfigFile: kubeconfig },
    ]);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('account reg-inline: orchConfigFile holds several lines');
    expect(JSON.stringify(answer.body)).not.toContain('s3cr3t-value');
  });

  it('needs WRITE on the account', async () => {
    await fx.define('reg-guarded');
    const dana = await fx.dana.post('/vendor/accounts', [{ name: 'reg-guarded' }]);
    expect(dana.status).toBe(403);
    expect(dana.body.message).toContain('dana may not change account reg-guarded');
  });
});

describe('PATCH /vendor/accounts (activate)', () => {
  it('sends the account to the agent of its zone, which caches it, and is ACTIVE once the agent says so', async () => {
    await fx.define('act-zoned', { namespaces: ['team'] });
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    const b = await fx.connect('agent-b', { zone: 'zone-b' });
    expect((await fx.olaf.post('/vendor/accounts', [{ name: 'act-zoned', zoneId: 'zone-a' }])).status).toBe(
      200,
    );
    // Rule 4: the zone of the POST holds; PATCH names only the account and the state.
    const patched = await fx.olaf.patch('/vendor/accounts', [
      { name: 'act-zoned', state: 'ACTIVE', orchConfigFile: '/kube/zone-a.yaml' },
    ]);
    expect(patched.status).toBe(200);
    // Sent, not yet confirmed: pending, not among the agents that handle it.
    expect(patched.body[0]).toMatchObject({
      state: 'ACTIVATING',
      agents: [],
      pendingAgents: [{ agentId: 'agent-a', caching: true }],
    });
    const add = await a.next(isAddOf('act-zoned'));
    const definition = JSON.parse(add.addAccounts?.accounts[0]?.definition.toString() ?? '{}');
    // The agent's own entry: no cloudctl fields, the migration's cluster configuration.
    expect(definition).toMatchObject({ namespaces: ['team'], orchConfigFile: '/kube/zone-a.yaml' });
    expect(definition).not.toHaveProperty('type');
    expect(cachingOf(a, 'act-zoned')).toEqual([true]);
    a.send({ accountStatus: { account: 'act-zoned', state: 'ACTIVE', message: '' } });
    const record = await fx.recordUntil('act-zoned', (r) => r.state === 'ACTIVE');
    expect(record).toMatchObject({
      zoneId: 'zone-a',
      agents: [{ agentId: 'agent-a', caching: true }],
      lastAssignmentMsg: 'active on agent agent-a (caching and operations)',
      config: expect.objectContaining({ orchConfigFile: '/kube/zone-a.yaml' }),
    });
    expect(added(b)).not.toContain('act-zoned');
    // Rule 3: only INACTIVE or FAILED accounts are activated.
    const again = await fx.olaf.patch('/vendor/accounts', [{ name: 'act-zoned', state: 'ACTIVE' }]);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(
      'account act-zoned is ACTIVE: only INACTIVE or FAILED accounts can be activated',
    );
  });

  it('sends an account without zone to every agent that takes dynamic accounts, one of them caching', async () => {
    await fx.define('act-everywhere');
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    const b = await fx.connect('agent-b', { zone: 'zone-b' });
    const off = await fx.connect('agent-c', {
      zone: 'zone-a',
      dynamic: { enabled: false, namePatterns: ['.*'] },
    });
    await fx.root.post('/vendor/accounts', [{ name: 'act-everywhere' }]);
    expect(
      (await fx.root.patch('/vendor/accounts', [{ name: 'act-everywhere', state: 'ACTIVE' }])).status,
    ).toBe(200);
    await a.next(isAddOf('act-everywhere'));
    await b.next(isAddOf('act-everywhere'));
    const flags = [...cachingOf(a, 'act-everywhere'), ...cachingOf(b, 'act-everywhere')];
    expect(flags.sort()).toEqual([false, true]);
    const pending = (await fx.root.get('/vendor/accounts/act-everywhere')).body;
    expect(pending.agents).toEqual([]);
    expect(pending.pendingAgents.map((x: { agentId: string }) => x.agentId).sort()).toEqual([
      'agent-a',
      'agent-b',
    ]);
    a.send({ accountStatus: { account: 'act-everywhere', state: 'ACTIVE', message: '' } });
    b.send({ accountStatus: { account: 'act-everywhere', state: 'ACTIVE', message: '' } });
    const record = await fx.recordUntil('act-everywhere', (r) => r.agents.length === 2);
    expect(record.agents.map((x: { agentId: string }) => x.agentId).sort()).toEqual(['agent-a', 'agent-b']);
    expect(record.agents.filter((x: { caching: boolean }) => x.caching)).toHaveLength(1);
    expect(record.pendingAgents).toEqual([]);
    // An agent with dynamic accounts off is never sent any, whatever its patterns.
    expect(added(off)).toEqual([]);
  });

  it('answers 400 when no connected agent could take the account (rule 3), naming account and zone', async () => {
    await fx.define('act-lonely');
    await fx.root.post('/vendor/accounts', [{ name: 'act-lonely', zoneId: 'zone-z' }]);
    const none = await fx.root.patch('/vendor/accounts', [{ name: 'act-lonely', state: 'ACTIVE' }]);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(
      'account act-lonely cannot be activated: no connected agent of zone zone-z takes dynamic accounts',
    );
    await fx.connect('agent-a', { zone: 'zone-z', dynamic: { enabled: false } });
    const disabled = await fx.root.patch('/vendor/accounts', [{ name: 'act-lonely', state: 'ACTIVE' }]);
    expect(disabled.status).toBe(400);
    expect((await fx.root.get('/vendor/accounts/act-lonely')).body.state).toBe('INACTIVE');
  });

  it('answers 400 for a state other than ACTIVE, an unregistered account and an undefined one', async () => {
    await fx.define('act-unregistered');
    await fx.connect('agent-a', { zone: 'zone-a' });
    const state = await fx.root.patch('/vendor/accounts', [{ name: 'act-unregistered', state: 'INACTIVE' }]);
    expect(state.status).toBe(400);
    expect(state.body.message).toContain('account act-unregistered: state must be ACTIVE (found "INACTIVE")');
    const unregistered = await fx.root.patch('/vendor/accounts', [
      { name: 'act-unregistered', state: 'ACTIVE' },
    ]);
    expect(unregistered.status).toBe(400);
    expect(unregistered.body.message).toBe(
      'account act-unregistered is not registered for migration: POST /vendor/accounts registers it first',
    );
    const undefinedAccount = await fx.root.patch('/vendor/accounts', [
      { name: 'act-undefined', state: 'ACTIVE' },
    ]);
    expect(undefinedAccount.status).toBe(400);
    expect(undefinedAccount.body.message).toBe(
      'account act-undefined is not defined in cloudctl (POST /credentials defines it)',
    );
  });

  it("is FAILED with the agent's own words when the agent cannot serve it, and PATCH tries again", async () => {
    await fx.define('act-broken');
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await fx.root.post('/vendor/accounts', [{ name: 'act-broken', zoneId: 'zone-a' }]);
    await fx.root.patch('/vendor/accounts', [{ name: 'act-broken', state: 'ACTIVE' }]);
    await a.next(isAddOf('act-broken'));
    a.send({
      accountStatus: {
        account: 'act-broken',
        state: 'FAILED',
        message: 'invalid kubeconfig: no current context',
      },
    });
    const failed = await fx.recordUntil('act-broken', (r) => r.state === 'FAILED');
    expect(failed.lastAssignmentMsg).toBe(
      'agent agent-a failed to add the account: invalid kubeconfig: no current context',
    );
    expect(failed.agents).toEqual([]);
    // No operation goes to an agent that cannot serve the account.
    expect(fx.cp.plane.registry.sessionFor('act-broken')).toBeUndefined();
    const retried = await fx.root.patch('/vendor/accounts', [
      { name: 'act-broken', state: 'ACTIVE', orchConfigFile: '/kube/fixed.yaml' },
    ]);
    expect(retried.status).toBe(200);
    expect(retried.body[0].state).toBe('ACTIVATING');
    await a.next(
      (m) =>
        isAddOf('act-broken')(m) &&
        m.addAccounts?.accounts[0]?.definition.toString().includes('fixed') === true,
    );
    expect(added(a).filter((n) => n === 'act-broken')).toHaveLength(2);
  });

  it("keeps an agent's static account: nothing is sent to it and the record says why", async () => {
    await fx.define('act-clash');
    const a = await fx.connect('agent-a', { zone: 'zone-a', statics: ['act-clash'] });
    a.send({ accountStatus: { account: 'act-clash', state: 'ACTIVE', message: '' } });
    await fx.root.post('/vendor/accounts', [{ name: 'act-clash', zoneId: 'zone-a' }]);
    expect((await fx.root.patch('/vendor/accounts', [{ name: 'act-clash', state: 'ACTIVE' }])).status).toBe(
      200,
    );
    // The record is the agent's account (it wins), ACTIVE as its agent reports; the message says why
    // cloudctl's definition went nowhere.
    const record = await fx.recordUntil(
      'act-clash',
      (r) => r.lastAssignmentMsg !== null && r.state === 'ACTIVE',
    );
    expect(record).toMatchObject({
      source: 'static-agent-config',
      agents: [{ agentId: 'agent-a', caching: true }],
      lastAssignmentMsg:
        "agent agent-a keeps its own static account act-clash: the agent's definition wins over cloudctl's",
    });
    expect((await fx.cp.plane.store.dynamicAccounts.registration('act-clash'))?.state).toBe('FAILED');
    expect(added(a)).not.toContain('act-clash');
    // Operations go to the agent's own account.
    expect(fx.cp.plane.registry.sessionFor('act-clash')?.agentId).toBe('agent-a');
  });

  it('lists no agent for a static account its agent reports FAILED, and gives the agent’s words', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a', statics: ['static-broken'] });
    a.send({
      accountStatus: { account: 'static-broken', state: 'FAILED', message: 'kubeconfig: no such file' },
    });
    const record = await fx.recordUntil('static-broken', (r) => r.state === 'FAILED');
    expect(record).toMatchObject({
      source: 'static-agent-config',
      agents: [],
      pendingAgents: [],
      lastAssignmentMsg: 'agent agent-a cannot serve its static account: kubeconfig: no such file',
    });
    expect((await fx.root.get('/agents/orchestrator/accounts/static-broken')).body).toMatchObject({
      status: 'FAILED',
      agents: [],
      errorMessage: 'kubeconfig: no such file',
    });
  });

  it('records a refusal in the agent’s words and does not send the account to that session again', async () => {
    await fx.define('act-refused');
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await fx.root.post('/vendor/accounts', [{ name: 'act-refused' }]);
    await fx.root.patch('/vendor/accounts', [{ name: 'act-refused', state: 'ACTIVE' }]);
    await a.next(isAddOf('act-refused'));
    a.send({
      accountStatus: { account: 'act-refused', state: 'REFUSED', message: 'dynamic accounts are disabled' },
    });
    const record = await fx.recordUntil('act-refused', (r) => r.state === 'FAILED');
    expect(record.lastAssignmentMsg).toBe('agent agent-a refused the account: dynamic accounts are disabled');
    expect(record.agents).toEqual([]);
    await fx.cp.plane.placement.place();
    expect(added(a).filter((n) => n === 'act-refused')).toHaveLength(1);
  });

  it('needs WRITE on the account; an admin role will do', async () => {
    await fx.define('act-guarded');
    await fx.connect('agent-a', { zone: 'zone-a' });
    await fx.root.post('/vendor/accounts', [{ name: 'act-guarded' }]);
    expect((await fx.dana.patch('/vendor/accounts', [{ name: 'act-guarded', state: 'ACTIVE' }])).status).toBe(
      403,
    );
    expect((await fx.root.patch('/vendor/accounts', [{ name: 'act-guarded', state: 'ACTIVE' }])).status).toBe(
      200,
    );
  });
});

describe('DELETE /vendor/accounts/{accountName}', () => {
  it('takes the account off its agents and leaves it registered, INACTIVE', async () => {
    await fx.define('del-one');
    const a = await fx.connect('agent-a', { zone: 'zone-a' });
    await fx.root.post('/vendor/accounts', [{ name: 'del-one' }]);
    await fx.root.patch('/vendor/accounts', [{ name: 'del-one', state: 'ACTIVE' }]);
    await a.next(isAddOf('del-one'));
    const answer = await fx.olaf.delete('/vendor/accounts/del-one');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      state: 'INACTIVE',
      agents: [],
      lastAssignmentMsg: 'removed from agents by olaf',
    });
    await a.next((m) => m.message === 'deleteAccounts');
    expect(deleted(a)).toEqual(['del-one']);
    expect(fx.cp.plane.registry.sessionFor('del-one')).toBeUndefined();
  });

  it('answers 400 for an account not defined in cloudctl, and never removes a static account', async () => {
    const a = await fx.connect('agent-a', { zone: 'zone-a', statics: ['del-static'] });
    const unknown = await fx.root.delete('/vendor/accounts/del-nowhere');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      'account del-nowhere is not defined in cloudctl (POST /credentials defines it)',
    );
    const fromAgent = await fx.root.delete('/vendor/accounts/del-static');
    expect(fromAgent.status).toBe(400);
    expect(fromAgent.body.message).toContain('which cloudctl never moves or removes');
    expect(deleted(a)).toEqual([]);
  });
});

describe('GET /vendor/accounts', () => {
  it('pages through static and cloudctl accounts by name, counting only those the user may read', async () => {
    const agent = await fx.connect('agent-a', { zone: 'zone-a', statics: ['list-b-static'] });
    await fx.define('list-a');
    await fx.define('list-c');
    await fx.root.post('/credentials', {
      name: 'list-d-hidden',
      type: 'orchestrator',
      orchConfigFile: '/kube/d.yaml',
      permissions: { READ: ['ops'], WRITE: ['ops'] },
    });
    const all = await fx.root.get('/vendor/accounts?limit=1000');
    expect(all.status).toBe(200);
    expect(all.body.limit).toBe(1000);
    const names = all.body.items.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort());
    expect(all.body.total).toBe(names.length);
    const ours = all.body.items.filter((r: { name: string }) => r.name.startsWith('list-'));
    expect(ours.map((r: { name: string; source: string }) => `${r.name}:${r.source}`)).toEqual([
      'list-a:cloudctl',
      'list-b-static:static-agent-config',
      'list-c:cloudctl',
      'list-d-hidden:cloudctl',
    ]);
    const dana: ApiClient = apiClient(fx.cp.url, USERS.dev.token);
    const visible = await dana.get('/vendor/accounts');
    expect(visible.body.limit).toBe(100);
    expect(visible.body.page).toBe(1);
    expect(visible.body.items.map((r: { name: string }) => r.name)).not.toContain('list-d-hidden');
    expect(visible.body.total).toBe(all.body.total - 1);
    const start = names.indexOf('list-a');
    const page = await fx.root.get(`/vendor/accounts?page=${start + 2}&limit=1`);
    expect(page.body).toMatchObject({ page: start + 2, limit: 1, total: all.body.total });
    expect(page.body.items.map((r: { name: string }) => r.name)).toEqual(['list-b-static']);
    expect(page.body.items[0]).toMatchObject({
      config: { name: 'list-b-static', permissions: { READ: ['dev'], WRITE: ['ops'] } },
      agents: [{ agentId: 'agent-a', caching: true }],
      state: 'ACTIVATING',
    });
    agent.close();
    await fx.recordUntil('list-b-static', (r) => r.state === 'ORPHANED');
  });
});
