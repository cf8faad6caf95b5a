// The cache controller and the agent accounts over real HTTP, with a test agent on real gRPC: the
// on-demand refresh asks the agent serving the account to read one object and stores (or drops) what
// it answers; introspection counts what was published; the account record and its namespaces come
// from what the agent registered and streamed. Each user sees only the accounts it may read.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OperationFailure } from '../../src/contract/index.ts';
import type { CacheItem, ControlMessage__Output } from '../../src/proto/index.ts';
import {
  startTestControlPlane,
  type TestAgent,
  TestAgents,
  type TestControlPlane,
  USERS,
} from './harness.ts';
import { type ApiClient, apiClient } from './http-client.ts';

let cp: TestControlPlane;
let ops: ApiClient;
let dev: ApiClient;
let nobody: ApiClient;
let admin: ApiClient;

const testAgents = new TestAgents();
const connectedAgent = (accounts: string[]) => testAgents.connect(cp.address, accounts);

const gvk = {
  Pod: { group: '', version: 'v1', kind: 'Pod' },
  Deployment: { group: 'apps', version: 'v1', kind: 'Deployment' },
  Namespace: { group: '', version: 'v1', kind: 'Namespace' },
  Secret: { group: '', version: 'v1', kind: 'Secret' },
  // Older than the version the built-in table names (autoscaling/v2): the cluster's wins.
  HorizontalPodAutoscaler: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
} as const;

function manifest(kind: keyof typeof gvk, namespace: string, name: string, resourceVersion: string) {
  const { group, version } = gvk[kind];
  return {
    apiVersion: group === '' ? version : `${group}/${version}`,
    kind,
    metadata: { name, ...(namespace === '' ? {} : { namespace }), resourceVersion },
  };
}

function added(account: string, object: ReturnType<typeof manifest>, snapshotId = ''): CacheItem {
  return {
    event: {
      account,
      gvk: gvk[object.kind as keyof typeof gvk],
      namespace: object.metadata.namespace ?? '',
      name: object.metadata.name,
      resourceVersion: object.metadata.resourceVersion,
      type: 'ADDED',
      object: Buffer.from(JSON.stringify(object)),
      snapshotId,
    },
  };
}

const taken = new Set<string>();

/** The next `get` operation the agent receives that no test step took yet. */
async function nextGet(agent: TestAgent): Promise<NonNullable<ControlMessage__Output['operation']>> {
  const message = await agent.next((m) => m.operation?.type === 'get' && !taken.has(m.operation.id));
  const op = message.operation;
  if (op == null) throw new Error('no operation');
  taken.add(op.id);
  return op;
}

function payloadOf(op: NonNullable<ControlMessage__Output['operation']>): unknown {
  return JSON.parse(op.payload.toString());
}

async function answer(agent: TestAgent, op: { id: string; account: string }, object: unknown) {
  await agent.report({
    operationId: op.id,
    account: op.account,
    outcome: 'SUCCEEDED',
    result: Buffer.from(JSON.stringify({ object })),
  });
}

async function fail(agent: TestAgent, op: { id: string; account: string }, failure: OperationFailure) {
  await agent.report({
    operationId: op.id,
    account: op.account,
    outcome: 'FAILED',
    error: failure.message,
    errorCode: failure.code,
    errorPath: failure.path ?? '',
  });
}

async function cached(account: string, kind: string, name: string) {
  return (await cp.plane.store.cache.resources(account, { kind })).find((r) => r.name === name);
}

beforeAll(async () => {
  cp = await startTestControlPlane();
  ops = apiClient(cp.url, USERS.ops.token);
  dev = apiClient(cp.url, USERS.dev.token);
  nobody = apiClient(cp.url, USERS.nobody.token);
  admin = apiClient(cp.url, USERS.admin.token);
});

afterEach(() => {
  testAgents.closeAll();
});

afterAll(async () => {
  await cp?.close();
});

describe('POST /cache/orchestrator/manifest', () => {
  it('has the agent read the object and answers 200 once the scrubbed object is stored', async () => {
    const agent = await connectedAgent(['refresh-a']);
    await agent.publish([
      { sequence: 1, items: [added('refresh-a', manifest('Deployment', 'web-ns', 'web', '10'))] },
    ]);

    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-a',
      location: 'web-ns',
      name: 'deployment web',
    });
    const op = await nextGet(agent);
    expect(op.account).toBe('refresh-a');
    expect(payloadOf(op)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'web-ns',
      name: 'web',
      asCached: true,
    });
    await answer(agent, op, {
      ...manifest('Deployment', 'web-ns', 'web', '17'),
      metadata: {
        name: 'web',
        namespace: 'web-ns',
        resourceVersion: '17',
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { replicas: 3 },
    });

    const response = await posted;
    expect(response.status).toBe(200);
    const id = 'orchestrator:infrastructure:deployment:refresh-a:web-ns:web';
    expect(response.body).toMatchObject({
      state: 'STORED',
      cachedIdentifiersByType: { deployment: [id] },
      request: {
        id,
        details: { account: 'refresh-a', location: 'web-ns', name: 'deployment web' },
        state: 'STORED',
        processedCount: 1,
        resourceVersion: '17',
      },
    });
    const row = await cached('refresh-a', 'Deployment', 'web');
    expect(row?.resourceVersion).toBe('17');
    expect(row?.body).toMatchObject({ spec: { replicas: 3 } });
    // An agent that ignores asCached (an older one) must not put managedFields into the cache.
    expect(row?.body).not.toHaveProperty('metadata.managedFields');
  });

  it('reads a built-in kind through the version the account caches it with, and names it as Spinnaker does', async () => {
    const agent = await connectedAgent(['refresh-hpa']);
    await agent.publish([
      { sequence: 1, items: [added('refresh-hpa', manifest('HorizontalPodAutoscaler', 'ns1', 'web', '1'))] },
    ]);
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-hpa',
      location: 'ns1',
      name: 'hpa web',
    });
    const op = await nextGet(agent);
    expect(payloadOf(op)).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' });
    await answer(agent, op, manifest('HorizontalPodAutoscaler', 'ns1', 'web', '2'));
    expect((await posted).body.cachedIdentifiersByType).toEqual({
      horizontalpodautoscaler: ['orchestrator:infrastructure:horizontalpodautoscaler:refresh-hpa:ns1:web'],
    });
  });

  it('blanks Secret values an agent sent unscrubbed before storing them', async () => {
    const agent = await connectedAgent(['refresh-secret']);
    await agent.publish([
      { sequence: 1, items: [added('refresh-secret', manifest('Secret', 'app', 'creds', '3'))] },
    ]);
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-secret',
      location: 'app',
      name: 'secret creds',
    });
    const op = await nextGet(agent);
    await answer(agent, op, {
      ...manifest('Secret', 'app', 'creds', '4'),
      data: { password: 'aHVudGVyMg==' },
    });
    expect((await posted).status).toBe(200);
    expect((await cached('refresh-secret', 'Secret', 'creds'))?.body).toMatchObject({
      data: { password: '' },
    });
  });

  it('removes the object from the cache when the agent answers NOT_FOUND', async () => {
    const agent = await connectedAgent(['refresh-b']);
    await agent.publish([{ sequence: 1, items: [added('refresh-b', manifest('Pod', 'ns1', 'gone', '5'))] }]);
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-b',
      location: 'ns1',
      name: 'pod gone',
    });
    await fail(agent, await nextGet(agent), {
      code: 'NOT_FOUND',
      message: 'GET /api/v1/namespaces/ns1/pods/gone: pods "gone" not found',
    });
    const response = await posted;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'EVICTED', cachedIdentifiersByType: {} });
    expect(await cached('refresh-b', 'Pod', 'gone')).toBeUndefined();
  });

  it('answers 202 with the pending request when the agent is slow, and stores the answer when it comes', async () => {
    const agent = await connectedAgent(['refresh-slow']);
    await agent.publish([
      { sequence: 1, items: [added('refresh-slow', manifest('Pod', 'ns1', 'slow', '1'))] },
    ]);
    const started = Date.now();
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-slow',
      location: 'ns1',
      name: 'pod slow',
    });
    const op = await nextGet(agent);
    const response = await posted;
    expect(response.status).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    const id = 'orchestrator:infrastructure:pod:refresh-slow:ns1:slow';
    expect(response.body).toMatchObject({
      state: 'PENDING',
      cachedIdentifiersByType: { pod: [id] },
      request: { id, state: 'PENDING', processedCount: 0, processedTime: -1 },
    });
    const listed = await dev.get(`/cache/orchestrator/manifest?id=${encodeURIComponent(id)}`);
    expect(listed.body).toMatchObject([{ id, state: 'PENDING', processedCount: 0 }]);

    await answer(agent, op, manifest('Pod', 'ns1', 'slow', '99'));
    await expect.poll(async () => (await cached('refresh-slow', 'Pod', 'slow'))?.resourceVersion).toBe('99');
    const after = await dev.get(`/cache/orchestrator/manifest?id=${encodeURIComponent(id)}`);
    expect(after.body).toMatchObject([{ id, state: 'STORED', processedCount: 1, resourceVersion: '99' }]);
    expect(after.body[0].processedTime).toBeGreaterThanOrEqual(after.body[0].cacheTime);
  }, 15_000);

  it('answers 200 NOT_CACHED without asking the agent for a kind the account does not cache', async () => {
    const agent = await connectedAgent(['refresh-c']);
    await agent.publish([{ sequence: 1, items: [added('refresh-c', manifest('Pod', 'ns1', 'p', '1'))] }]);
    const response = await ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-c',
      location: 'ns1',
      name: 'service web',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'NOT_CACHED', cachedIdentifiersByType: {}, request: null });
    expect(agent.received.some((m) => m.message === 'operation')).toBe(false);
  });

  it('answers 502 with the agent error when the agent cannot read the object', async () => {
    const agent = await connectedAgent(['refresh-d']);
    await agent.publish([{ sequence: 1, items: [added('refresh-d', manifest('Pod', 'ns1', 'p', '1'))] }]);
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-d',
      location: 'ns1',
      name: 'pod p',
    });
    await fail(agent, await nextGet(agent), { code: 'FORBIDDEN', message: 'pods "p" is forbidden' });
    const response = await posted;
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({
      code: 'AGENT_FAILED',
      message: 'the agent could not read pod p: FORBIDDEN: pods "p" is forbidden',
    });
    expect((await cached('refresh-d', 'Pod', 'p'))?.resourceVersion).toBe('1');
  });

  it('answers 503 AGENT_UNAVAILABLE when no agent serving the account is connected', async () => {
    const agent = await connectedAgent(['refresh-e']);
    await agent.publish([{ sequence: 1, items: [added('refresh-e', manifest('Pod', 'ns1', 'p', '1'))] }]);
    agent.close();
    await expect.poll(() => cp.plane.registry.sessionFor('refresh-e')).toBeUndefined();
    const response = await ops.post('/cache/orchestrator/manifest', {
      account: 'refresh-e',
      location: 'ns1',
      name: 'pod p',
    });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      code: 'AGENT_UNAVAILABLE',
      message: expect.stringContaining('refresh-e'),
    });
  });

  it.each([
    [{ location: 'ns1', name: 'pod p' }, 'body.account'],
    [{ account: 'refresh-f', location: 'ns1', name: 'pod' }, 'body.name: expected "<kind> <name>"'],
    [
      { account: 'refresh-f', location: 'ns1', name: 'frobnicator p' },
      "body.name: unknown kind 'frobnicator'",
    ],
    [{ account: 'refresh-f', name: 'pod p' }, 'body.location: pod objects live in namespaces'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const agent = await connectedAgent(['refresh-f']);
    await agent.publish([{ sequence: 1, items: [added('refresh-f', manifest('Pod', 'ns1', 'p', '1'))] }]);
    const response = await ops.post('/cache/orchestrator/manifest', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringContaining(message),
    });
  });

  it('refuses without a token (401), without WRITE (403) and for an unknown account (404)', async () => {
    await connectedAgent(['refresh-g']);
    const body = { account: 'refresh-g', location: 'ns1', name: 'pod p' };
    expect((await apiClient(cp.url).post('/cache/orchestrator/manifest', body)).status).toBe(401);
    const readOnly = await dev.post('/cache/orchestrator/manifest', body);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.code).toBe('FORBIDDEN');
    const unknown = await ops.post('/cache/orchestrator/manifest', { ...body, account: 'no-such-account' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('no account named no-such-account');
  });

  it('answers 404 for another cloud provider, and takes the type in any case', async () => {
    await connectedAgent(['refresh-h']);
    const body = { account: 'refresh-h', location: 'ns1', name: 'service web' };
    const aws = await ops.post('/cache/aws/manifest', body);
    expect(aws.status).toBe(404);
    expect(aws.body.message).toContain("no cloud provider 'aws'");
    expect((await ops.post('/cache/aws/serverGroup', body)).status).toBe(404);
    expect((await ops.get('/cache/orchestrator/serverGroup')).status).toBe(404);
    expect((await ops.post('/cache/orchestrator/Manifest', body)).status).toBe(200);
    const badManifest = await ops.post('/cache/orchestrator/MANIFEST', {
      location: 'ns1',
      name: 'service web',
    });
    expect(badManifest.status).toBe(400);
    expect(badManifest.body.message).toMatch(/^body\.account: /);
  });

  it('answers a refresh of any other type as clouddriver does a type it has no handler for: 200, nothing cached, nothing asked', async () => {
    const agent = await connectedAgent(['refresh-i']);
    // What Orca sends after a server group stage; the account need not even exist, as nothing is read.
    for (const [type, body] of [
      ['serverGroup', { account: 'refresh-i', region: 'ns1', serverGroupName: 'replicaSet web-v001' }],
      ['loadBalancer', { account: 'no-such-account', loadBalancerName: 'web' }],
      ['Frobnicator', {}],
    ] as const) {
      const answer = await ops.post(`/cache/orchestrator/${type}`, body);
      expect(answer.status, type).toBe(200);
      expect(answer.body).toMatchObject({ cachedIdentifiersByType: {}, state: 'NOT_CACHED', request: null });
      expect(answer.body.message).toContain(`nothing to refresh for type '${type}'`);
    }
    expect(agent.received.filter((m) => m.operation != null)).toEqual([]);
    expect((await apiClient(cp.url).post('/cache/orchestrator/serverGroup', {})).status).toBe(401);
  });
});

describe('GET /cache/orchestrator/manifest', () => {
  it('lists requests only of accounts the user may read, and one by id', async () => {
    const agent = await connectedAgent(['list-a']);
    await agent.publish([{ sequence: 1, items: [added('list-a', manifest('Pod', 'ns1', 'p', '1'))] }]);
    const posted = ops.post('/cache/orchestrator/manifest', {
      account: 'list-a',
      location: 'ns1',
      name: 'pod p',
    });
    await answer(agent, await nextGet(agent), manifest('Pod', 'ns1', 'p', '2'));
    expect((await posted).status).toBe(200);

    const id = 'orchestrator:infrastructure:pod:list-a:ns1:p';
    const mine = (await dev.get('/cache/orchestrator/manifest')).body as Array<{ id: string }>;
    expect(mine.map((r) => r.id)).toContain(id);
    expect((await nobody.get('/cache/orchestrator/manifest')).body).toEqual([]);
    const one = await dev.get(`/cache/orchestrator/manifest?id=${encodeURIComponent(id)}`);
    expect(one.body).toEqual([
      {
        id,
        details: { account: 'list-a', location: 'ns1', name: 'pod p' },
        state: 'STORED',
        cacheTime: expect.any(Number),
        processedCount: 1,
        processedTime: expect.any(Number),
        resourceVersion: '2',
        error: null,
      },
    ]);
    expect((await dev.get('/cache/orchestrator/manifest?id=nothing')).body).toEqual([]);
  });
});

describe('GET /cache/introspection', () => {
  it('counts cached objects per kind, with the last sync, the event rate and the connection', async () => {
    const agent = await connectedAgent(['intro-a']);
    const scope = { account: 'intro-a', group: '', kind: 'Pod', namespace: '' };
    const before = Date.now();
    await agent.publish([
      { sequence: 1, items: [{ snapshotBegin: { scope, snapshotId: 's1' } }] },
      {
        sequence: 2,
        items: [
          added('intro-a', manifest('Pod', 'ns1', 'a', '1'), 's1'),
          added('intro-a', manifest('Pod', 'ns1', 'b', '2'), 's1'),
          added('intro-a', manifest('Pod', 'ns2', 'c', '3'), 's1'),
          added('intro-a', manifest('Deployment', 'ns1', 'web', '4')),
        ],
      },
      { sequence: 3, items: [{ snapshotEnd: { scope, snapshotId: 's1', resourceVersion: '5' } }] },
      {
        sequence: 4,
        items: [
          {
            bookmark: {
              scope: { account: 'intro-a', group: 'batch', kind: 'Job', namespace: '' },
              resourceVersion: '6',
            },
          },
        ],
      },
    ]);
    const after = Date.now();

    const response = await dev.get('/cache/introspection');
    expect(response.status).toBe(200);
    const record = (response.body as Array<{ account: string }>).find((r) => r.account === 'intro-a');
    expect(record).toMatchObject({
      id: 'agent-1/intro-a',
      provider: 'orchestrator',
      agentId: 'agent-1',
      zoneId: 'zone-a',
      connected: true,
      status: 'UNKNOWN',
      lastError: null,
      // By group, then kind; a kind watched without objects (a bookmark only) counts 0.
      kinds: [
        { kind: 'pod', group: '', count: 3 },
        { kind: 'deployment', group: 'apps', count: 1 },
        { kind: 'job', group: 'batch', count: 0 },
      ],
      totalObjects: 4,
      // Four resource events in the last minute; snapshot marks and bookmarks are not events.
      eventsPerSecond: 4 / 60,
    });
    const synced = (record as unknown as { lastSyncMs: number }).lastSyncMs;
    expect(synced).toBeGreaterThanOrEqual(before);
    expect(synced).toBeLessThanOrEqual(after);

    const metrics = (await apiClient(cp.url).get('/metrics')).body as string;
    expect(metrics).toContain('cloudctl_cache_events_ingested_total{account="intro-a"} 4');
    expect(metrics).toMatch(/^cloudctl_store_write_duration_seconds_count [1-9]\d*$/m);
  });

  it('shows the last error of a failed account and whether the agent is still connected', async () => {
    const agent = await connectedAgent(['intro-b']);
    agent.send({
      accountStatus: { account: 'intro-b', state: 'FAILED', message: 'cannot reach https://10.0.0.1' },
    });
    const failed = async () =>
      ((await dev.get('/cache/introspection')).body as Array<{ account: string }>).find(
        (r) => r.account === 'intro-b',
      );
    await expect.poll(failed).toMatchObject({
      status: 'FAILED',
      lastError: { message: 'cannot reach https://10.0.0.1' },
      connected: true,
    });
    agent.close();
    await expect.poll(failed).toMatchObject({ connected: false });
  });

  it('lists only the accounts the user may read', async () => {
    await connectedAgent(['intro-c']);
    const accounts = async (client: ApiClient) =>
      ((await client.get('/cache/introspection')).body as Array<{ account: string }>).map((r) => r.account);
    expect(await accounts(dev)).toContain('intro-c');
    expect(await accounts(admin)).toContain('intro-c');
    expect(await accounts(nobody)).toEqual([]);
    expect((await apiClient(cp.url).get('/cache/introspection')).status).toBe(401);
  });
});

describe('GET /agents/orchestrator/accounts/{accountName}', () => {
  it('answers the account as its agent registered it, with whether the agent serves it now', async () => {
    const agent = await connectedAgent(['acct-a']);
    const response = await dev.get('/agents/orchestrator/accounts/acct-a');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      name: 'acct-a',
      type: 'orchestrator',
      source: 'static-agent-config',
      zoneId: 'zone-a',
      agents: [{ agentId: 'agent-1', caching: true }],
      pendingAgents: [],
      status: 'UNKNOWN',
      errorMessage: null,
      kubeHost: 'https://127.0.0.1:6443',
      kubeVersion: 'v1.33.1',
      permissions: { READ: ['dev'], WRITE: ['ops'] },
      lastUpdated: expect.any(Number),
    });
    agent.close();
    await expect
      .poll(async () => (await dev.get('/agents/orchestrator/accounts/acct-a')).body.agents)
      .toEqual([{ agentId: 'agent-1', caching: false }]);
  });

  it('refuses without a token (401), without READ (403) and for an unknown account (404)', async () => {
    await connectedAgent(['acct-b']);
    expect((await apiClient(cp.url).get('/agents/orchestrator/accounts/acct-b')).status).toBe(401);
    expect((await nobody.get('/agents/orchestrator/accounts/acct-b')).status).toBe(403);
    expect((await nobody.get('/agents/orchestrator/accounts/acct-b/namespaces')).status).toBe(403);
    expect((await dev.get('/agents/orchestrator/accounts/no-such')).status).toBe(404);
    expect((await dev.get('/agents/orchestrator/accounts/no-such/namespaces')).status).toBe(404);
  });

  it('lists the namespaces Namespace objects name and objects live in, sorted and once each', async () => {
    const agent = await connectedAgent(['acct-c']);
    await agent.publish([
      {
        sequence: 1,
        items: [
          added('acct-c', manifest('Pod', 'team-b', 'p1', '1')),
          added('acct-c', manifest('Pod', 'team-b', 'p2', '2')),
          added('acct-c', manifest('Deployment', 'team-a', 'web', '3')),
          added('acct-c', manifest('Namespace', '', 'team-a', '4')),
          added('acct-c', manifest('Namespace', '', 'empty', '5')),
        ],
      },
    ]);
    const response = await dev.get('/agents/orchestrator/accounts/acct-c/namespaces');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(['empty', 'team-a', 'team-b']);
  });
});

describe('on-demand writes to the cache store', () => {
  const key = { account: 'store-a', group: '', kind: 'Pod', namespace: 'ns1', name: 'p' };
  const object = (resourceVersion: string) => ({
    ...key,
    version: 'v1',
    resourceVersion,
    body: JSON.stringify(manifest('Pod', 'ns1', 'p', resourceVersion)),
  });

  it('never replaces a newer version the watch stored meanwhile', async () => {
    const { cache } = cp.plane.store;
    expect(await cache.refresh(object('120'), new Date())).toBe(true);
    expect(await cache.refresh(object('99'), new Date())).toBe(false);
    expect((await cached('store-a', 'Pod', 'p'))?.resourceVersion).toBe('120');
    expect(await cache.refresh(object('121'), new Date())).toBe(true);
    expect((await cached('store-a', 'Pod', 'p'))?.resourceVersion).toBe('121');
  });

  it('keeps the snapshot mark of the row it refreshes, so a relist in progress does not drop it', async () => {
    const agent = await connectedAgent(['store-b']);
    const scope = { account: 'store-b', group: '', kind: 'Pod', namespace: '' };
    await agent.publish([
      { sequence: 1, items: [{ snapshotBegin: { scope, snapshotId: 'relist' } }] },
      { sequence: 2, items: [added('store-b', manifest('Pod', 'ns1', 'kept', '1'), 'relist')] },
    ]);
    await cp.plane.store.cache.refresh({ ...object('2'), account: 'store-b', name: 'kept' }, new Date());
    await agent.publish([
      { sequence: 1, items: [{ snapshotEnd: { scope, snapshotId: 'relist', resourceVersion: '3' } }] },
    ]);
    expect((await cached('store-b', 'Pod', 'kept'))?.resourceVersion).toBe('2');
  });

  it('does not evict an object stored after the read that missed it', async () => {
    const { cache } = cp.plane.store;
    const readAt = new Date(Date.now() - 1000);
    await cache.refresh({ ...object('5'), account: 'store-c' }, new Date());
    expect(await cache.evict({ ...key, account: 'store-c' }, readAt)).toBe(false);
    expect(await cached('store-c', 'Pod', 'p')).toBeDefined();
    expect(await cache.evict({ ...key, account: 'store-c' }, new Date())).toBe(true);
    expect(await cached('store-c', 'Pod', 'p')).toBeUndefined();
  });
});

describe('the Swagger document', () => {
  it('documents the cache and agent account routes, with the refresh answers 202, 502 and 503', async () => {
    const doc = (await apiClient(cp.url).get('/v2/api-docs')).body;
    const onDemand = doc.paths['/cache/{cloudProvider}/{type}'];
    expect(Object.keys(onDemand.post.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '403', '404', '502', '503']),
    );
    expect(onDemand.get.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', in: 'query', required: false }),
    );
    expect(doc.paths['/cache/introspection'].get.tags).toEqual(['cache-controller']);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/agents/orchestrator/accounts/{accountName}',
        '/agents/orchestrator/accounts/{accountName}/namespaces',
      ]),
    );
    // Swagger 2.0 has no unions: nullable fields are x-nullable, nothing else.
    const ours = JSON.stringify([
      onDemand,
      doc.paths['/cache/introspection'],
      doc.paths['/agents/orchestrator/accounts/{accountName}'],
    ]);
    expect(ours).not.toMatch(/"anyOf"|"oneOf"|"const"/);
  });
});
