// On-demand refresh end to end: POST /cache/orchestrator/manifest goes over real HTTP to cloudctl,
// down a real agent's session to the shared cluster, and the answer lands in the cache. The agent
// watches the same objects, so to see the refresh at work the tests first make the cache wrong
// behind the agent's back (a stale copy, an object the cluster never had) and let the refresh right it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMap,
  msUntilSynced,
  must,
  type RunningAgent,
  startAgent,
} from '../agent/watch/watch-fixture.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from './harness.ts';
import { apiClient, type ApiClient as HttpApi } from './http-client.ts';

const NS = 'cache-refresh';
let cp: TestControlPlane;
let cluster: ApiClient;
let agent: RunningAgent;
let ops: HttpApi;

const account = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  orchConfigFile: sharedCluster().kubeconfigPath,
  namespaces: [NS],
  kinds: ['configMap', 'secret'],
  permissions: { READ: ['dev'], WRITE: ['ops'] },
  ...extra,
});

async function cached(accountName: string, kind: string, name: string) {
  return (await cp.plane.store.cache.resources(accountName, { kind })).find(
    (r) => r.namespace === NS && r.name === name,
  );
}

async function clusterVersion(path: string): Promise<string> {
  const object = must(await cluster.get(path)).json as { metadata: { resourceVersion: string } };
  return object.metadata.resourceVersion;
}

/** Writes a row into the cache as if the agent had streamed it (the agent never did). */
async function plant(
  accountName: string,
  name: string,
  resourceVersion: string,
  data: Record<string, string>,
) {
  const object = { ...configMap(NS, name, data), metadata: { name, namespace: NS, resourceVersion } };
  await cp.plane.store.cache.apply(
    [
      {
        type: 'upsert',
        account: accountName,
        group: '',
        kind: 'ConfigMap',
        namespace: NS,
        name,
        version: 'v1',
        resourceVersion,
        body: JSON.stringify(object),
        snapshotId: null,
      },
    ],
    new Date(),
  );
}

const refresh = (accountName: string, name: string) =>
  ops.post('/cache/orchestrator/manifest', { account: accountName, location: NS, name });

beforeAll(async () => {
  cp = await startTestControlPlane();
  ops = apiClient(cp.url, USERS.ops.token);
  cluster = sharedClusterClient();
  must(
    await cluster.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    }),
  );
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [account('refresh'), account('managed-only', { onlyPlatformManaged: true })],
    },
  });
  await msUntilSynced(cp, agent);
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await cp?.close();
});

describe('on-demand refresh against a real cluster', () => {
  it('replaces a stale cached copy with the object as the cluster has it now', async () => {
    must(
      await cluster.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        body: configMap(NS, 'web', { v: '1' }),
      }),
    );
    const version = await clusterVersion(`/api/v1/namespaces/${NS}/configmaps/web`);
    await expect
      .poll(async () => (await cached('refresh', 'ConfigMap', 'web'))?.resourceVersion)
      .toBe(version);
    await plant('refresh', 'web', '1', { v: 'stale' });

    const response = await refresh('refresh', 'configMap web');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'STORED', request: { resourceVersion: version } });
    const row = await cached('refresh', 'ConfigMap', 'web');
    expect(row?.resourceVersion).toBe(version);
    expect(row?.body).toMatchObject({ data: { v: '1' } });
  });

  it('removes a cached object the cluster does not have', async () => {
    await plant('refresh', 'phantom', '1', {});
    const response = await refresh('refresh', 'configMap phantom');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'EVICTED' });
    expect(await cached('refresh', 'ConfigMap', 'phantom')).toBeUndefined();
  });

  it('never lets Secret values leave the cluster: not into the cache, not into the operation record', async () => {
    must(
      await cluster.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'creds', namespace: NS },
          data: { password: 'c2VjcmV0LXZhbHVlLTQ0' },
        },
      }),
    );
    const response = await refresh('refresh', 'secret creds');
    expect(response.status).toBe(200);
    expect((await cached('refresh', 'Secret', 'creds'))?.body).toMatchObject({ data: { password: '' } });
    const sent = cp.logs.filter((l) => l.msg === 'operation sent' && l.type === 'get');
    const operation = await cp.plane.store.operations.get(String(sent.at(-1)?.operationId));
    expect(operation?.state).toBe('succeeded');
    expect(JSON.stringify(operation?.result)).toContain('"name":"creds"');
    expect(JSON.stringify(operation?.result)).not.toContain('c2VjcmV0LXZhbHVlLTQ0');
  });

  it('drops what an onlyPlatformManaged account leaves out, and stores what it keeps', async () => {
    must(
      await cluster.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        body: configMap(NS, 'unmanaged'),
      }),
    );
    must(
      await cluster.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        body: {
          ...configMap(NS, 'managed'),
          metadata: {
            name: 'managed',
            namespace: NS,
            annotations: { 'deploy.vendor.io/application': 'web' },
          },
        },
      }),
    );
    await expect
      .poll(async () => (await cached('managed-only', 'ConfigMap', 'managed')) !== undefined)
      .toBe(true);
    await plant('managed-only', 'unmanaged', '1', {});

    const dropped = await refresh('managed-only', 'configMap unmanaged');
    expect(dropped.body).toMatchObject({ state: 'EVICTED' });
    expect(await cached('managed-only', 'ConfigMap', 'unmanaged')).toBeUndefined();
    const kept = await refresh('managed-only', 'configMap managed');
    expect(kept.body).toMatchObject({ state: 'STORED' });
  });
});

describe('the agent account and its namespaces', () => {
  it('answers the account as ACTIVE and served, and the namespace of its cached objects', async () => {
    const dev = apiClient(cp.url, USERS.dev.token);
    const record = await dev.get('/agents/orchestrator/accounts/refresh');
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      name: 'refresh',
      status: 'ACTIVE',
      agents: [{ agentId: 'agent-1', caching: true }],
    });
    expect((await dev.get('/agents/orchestrator/accounts/refresh/namespaces')).body).toEqual([NS]);
  });
});
