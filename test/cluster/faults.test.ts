// The harness's fault hooks do to a cluster what they promise, on clusters of this file's own (never
// the shared one), two of them running at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient, type Cluster, startCluster, type WatchEvent } from './index.ts';

const Meta = z.object({ metadata: z.object({ resourceVersion: z.string() }) });
const Status = z.object({ kind: z.literal('Status'), code: z.number(), reason: z.string() });

/** Without a watch cache every watch reaches etcd: compaction shows at once. */
let etcdServed: Cluster;
/** As real clusters run: watches are served from the API server's watch cache. */
let cached: Cluster;

beforeAll(async () => {
  [etcdServed, cached] = await Promise.all([startCluster({ watchCache: false, nodes: 0 }), startCluster()]);
});

afterAll(async () => {
  await Promise.all([etcdServed?.stop(), cached?.stop()]);
});

async function configMapRevisions(api: ApiClient, name: string, updates: number): Promise<string> {
  const created = await api.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: { metadata: { name }, data: { n: '0' } },
  });
  expect(created.status, created.text).toBe(201);
  for (let n = 1; n <= updates; n++) {
    const patched = await api.request('PATCH', `/api/v1/namespaces/default/configmaps/${name}`, {
      body: { data: { n: String(n) } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status, patched.text).toBe(200);
  }
  return Meta.parse(created.json).metadata.resourceVersion;
}

/** The first event of a watch (410 arrives as an ERROR event carrying a Status). */
async function firstEvent(api: ApiClient, path: string): Promise<WatchEvent> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for await (const event of api.watch(path, controller.signal)) return event;
    throw new Error(`watch ${path} ended without an event`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe('compactEtcd', () => {
  it('makes a watch and a list from a compacted resourceVersion get 410 Gone', async () => {
    const api = etcdServed.client;
    const old = await configMapRevisions(api, 'compacted', 3);
    // Only this object: the controller-manager may publish kube-root-ca.crt into `default` meanwhile
    // (late on a loaded machine), whose ADDED event would come first.
    const watchPath = `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}&fieldSelector=metadata.name%3Dcompacted`;
    // Before compaction the history is there: the watch replays the first update.
    expect((await firstEvent(api, watchPath)).type).toBe('MODIFIED');

    const { revision } = await etcdServed.compactEtcd();
    expect(revision).toBeGreaterThan(Number(old));

    const event = await firstEvent(api, watchPath);
    expect(event.type).toBe('ERROR');
    expect(Status.parse(event.object)).toMatchObject({ code: 410, reason: 'Expired' });
    const list = await api.get(
      `/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`,
    );
    expect(list.status).toBe(410);
  });
});

describe('restartApiServer', () => {
  it('brings the API server back on the same address and CA, with the data kept', async () => {
    const api = cached.client;
    await configMapRevisions(api, 'survives-restart', 0);
    const before = cached.pids()['kube-apiserver'];
    await cached.restartApiServer();
    expect(cached.pids()['kube-apiserver']).not.toBe(before);
    const after = await api.get('/api/v1/namespaces/default/configmaps/survives-restart');
    expect(after.status, after.text).toBe(200);
  });

  it('empties the watch cache: a watch from before the restart gets 410 Gone', async () => {
    const api = cached.client;
    const old = await configMapRevisions(api, 'before-restart', 2);
    await cached.restartApiServer();
    const event = await firstEvent(
      api,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`,
    );
    expect(event.type).toBe('ERROR');
    expect(Status.parse(event.object)).toMatchObject({ code: 410, reason: 'Expired' });
  });
});

describe('kwokNodes', () => {
  it('adds Ready fake nodes up to the count asked for', async () => {
    const names = await cached.kwokNodes(4);
    expect(names).toEqual(['kwok-node-0', 'kwok-node-1', 'kwok-node-2', 'kwok-node-3']);
    const Nodes = z.object({ items: z.array(z.object({ metadata: z.object({ name: z.string() }) })) });
    const nodes = Nodes.parse((await cached.client.get('/api/v1/nodes')).json);
    expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual(names);
  });
});

describe('several clusters at once', () => {
  it('run on their own ports, directories and CAs, and share nothing', async () => {
    expect(etcdServed.server).not.toBe(cached.server);
    expect(etcdServed.etcdUrl).not.toBe(cached.etcdUrl);
    expect(etcdServed.dir).not.toBe(cached.dir);
    await configMapRevisions(etcdServed.client, 'only-in-one', 0);
    expect((await cached.client.get('/api/v1/namespaces/default/configmaps/only-in-one')).status).toBe(404);
    // A client trusting one cluster's CA cannot complete a TLS handshake with the other.
    const crossed = new ApiClient({ server: etcdServed.server, ca: cached.ca });
    try {
      await expect(crossed.get('/version')).rejects.toThrow();
    } finally {
      await crossed.close();
    }
  });
});
