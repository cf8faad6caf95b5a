// The storage contract, run unchanged against embedded PGlite and a real PostgreSQL server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheChange, WatchScope } from '../../src/cloudctl/caching/index.ts';
import { type CloudctlStores, openStores } from '../../src/cloudctl/index.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function pod(
  account: string,
  namespace: string,
  name: string,
  resourceVersion: string,
  snapshotId: string | null = null,
) {
  return {
    type: 'upsert',
    account,
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespace,
    name,
    resourceVersion,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, resourceVersion } }),
    snapshotId,
  } satisfies CacheChange;
}

const podScope = (account: string, namespace = ''): WatchScope => ({
  account,
  group: '',
  kind: 'Pod',
  namespace,
});

async function names(store: CloudctlStores, account: string) {
  return (await store.cache.resources(account)).map((r) => `${r.namespace}/${r.name}`);
}

interface Backend {
  name: string;
  open(): Promise<CloudctlStores>;
  close(): Promise<void>;
}

let postgres: PostgresServer | undefined;

const backends: Backend[] = [
  {
    name: 'PGlite (embedded)',
    open: () => openStores({ kind: 'pglite', dataDir: 'memory://' }),
    close: async () => {},
  },
  {
    name: 'PostgreSQL server',
    async open() {
      // No skip: a machine without PostgreSQL fails here with the reason.
      postgres = await startPostgres();
      return openStores({ kind: 'postgres', url: postgres.url });
    },
    close: async () => postgres?.stop(),
  },
];

describe.each(backends)('store on $name', (backend) => {
  let store: CloudctlStores;

  beforeAll(async () => {
    store = await backend.open();
    await store.agents.register(
      {
        agentId: 'agent-1',
        version: '0.1.0',
        zoneId: 'zone-a',
        replicaCount: 1,
        accounts: [
          'acc-events',
          'acc-snap',
          'acc-ns',
          'acc-unmatched',
          'acc-atomic',
          'acc-copy',
          'acc-resume',
          'acc-ops',
        ].map((name) => ({
          name,
          permissions: { read: ['dev'], write: ['ops'] },
          apiServerHost: 'https://127.0.0.1:6443',
          kubernetesVersion: 'v1.33.1',
        })),
      },
      T0,
    );
  });

  afterAll(async () => {
    await store?.close();
    await backend.close();
  });

  it('applies a batch in order when it touches one object several times', async () => {
    const del = (name: string): CacheChange => ({
      type: 'delete',
      account: 'acc-order',
      group: '',
      kind: 'Pod',
      namespace: 'ns1',
      name,
    });
    await store.cache.apply(
      [
        pod('acc-order', 'ns1', 'a', '1'),
        pod('acc-order', 'ns1', 'b', '2'),
        pod('acc-order', 'ns1', 'a', '3'),
        del('b'),
        pod('acc-order', 'ns1', 'b', '5'),
        pod('acc-order', 'ns1', 'c', '6'),
        pod('acc-order', 'ns1', 'b', '7'),
        del('c'),
      ],
      at(1),
    );
    const stored = await store.cache.resources('acc-order');
    expect(stored.map((r) => `${r.name}@${r.resourceVersion}`)).toEqual(['a@3', 'b@7']);
  });

  it('stores a large batch of upserts completely', async () => {
    const many = Array.from({ length: 1234 }, (_, i) => pod('acc-many', `ns${i % 7}`, `p${i}`, String(i)));
    const outcome = await store.cache.apply(many, at(1));
    expect(outcome.upserted).toBe(1234);
    expect(await store.cache.count('acc-many')).toBe(1234);
  });

  it('reads many objects by key at once, past one query’s thousand keys, leaving out those not cached', async () => {
    const stored = Array.from({ length: 1500 }, (_, i) => pod('acc-keys', `ns${i % 3}`, `p${i}`, String(i)));
    await store.cache.apply(stored, at(1));
    const key = (name: string, namespace: string, account = 'acc-keys') => ({
      account,
      group: '',
      kind: 'Pod',
      namespace,
      name,
    });
    const wanted = [
      ...stored.filter((_, i) => i % 2 === 0).map((p) => key(p.name, p.namespace)),
      key('p1', 'ns0'), // p1 is in ns1
      key('p0', 'ns0', 'acc-other'),
      key('missing', 'ns0'),
    ];
    const found = await store.cache.objects(wanted);
    expect(found).toHaveLength(750);
    expect(new Set(found.map((o) => o.account))).toEqual(new Set(['acc-keys']));
    const p1498 = found.find((o) => o.name === 'p1498');
    expect(p1498).toMatchObject({ namespace: 'ns1', resourceVersion: '1498', kind: 'Pod' });
    expect(p1498?.body).toMatchObject({ metadata: { name: 'p1498' } });
    expect(found.some((o) => Number(o.name.slice(1)) % 2 === 1)).toBe(false);
  });

  it('applies ADDED, MODIFIED and DELETED events and returns the objects as stored', async () => {
    await store.cache.apply([pod('acc-events', 'ns1', 'a', '1'), pod('acc-events', 'ns1', 'b', '2')], at(1));
    await store.cache.apply(
      [
        pod('acc-events', 'ns1', 'a', '3'),
        { type: 'delete', account: 'acc-events', group: '', kind: 'Pod', namespace: 'ns1', name: 'b' },
      ],
      at(2),
    );
    const resources = await store.cache.resources('acc-events');
    expect(resources).toHaveLength(1);
    expect(resources[0]).toMatchObject({
      kind: 'Pod',
      version: 'v1',
      namespace: 'ns1',
      name: 'a',
      resourceVersion: '3',
    });
    expect(resources[0]?.body).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', namespace: 'ns1', resourceVersion: '3' },
    });
    expect(resources[0]?.updatedAt.toISOString()).toBe(at(2).toISOString());
    expect(await store.cache.count('acc-events')).toBe(1);
    expect(await store.cache.count('acc-events', { kind: 'Pod' })).toBe(1);
    expect(await store.cache.count('acc-events', { kind: 'ConfigMap' })).toBe(0);
  });

  it('deletes on snapshot end what the snapshot did not carry, and records the list version', async () => {
    await store.cache.apply(
      [pod('acc-snap', 'ns1', 'a', '1'), pod('acc-snap', 'ns1', 'b', '2'), pod('acc-snap', 'ns2', 'c', '3')],
      at(1),
    );
    // The relist is split over batches, as a long list would be.
    await store.cache.apply(
      [
        { type: 'snapshotBegin', scope: podScope('acc-snap'), snapshotId: 's1' },
        pod('acc-snap', 'ns1', 'a', '4', 's1'),
      ],
      at(2),
    );
    expect(await names(store, 'acc-snap')).toEqual(['ns1/a', 'ns1/b', 'ns2/c']);
    const outcome = await store.cache.apply(
      [
        pod('acc-snap', 'ns2', 'c', '5', 's1'),
        { type: 'snapshotEnd', scope: podScope('acc-snap'), snapshotId: 's1', resourceVersion: '10' },
      ],
      at(3),
    );
    expect(outcome.deleted).toBe(1);
    expect(await names(store, 'acc-snap')).toEqual(['ns1/a', 'ns2/c']);
    const versions = await store.cache.resumeVersions(['acc-snap'], 0, at(3));
    expect(versions).toEqual([{ scope: podScope('acc-snap'), resourceVersion: '10', updatedAt: at(3) }]);
  });

  it('stores a relist into an empty scope in full, over batches, as new rows', async () => {
    const scope = podScope('acc-fresh');
    const batch = (from: number) =>
      Array.from({ length: 300 }, (_, i) =>
        pod('acc-fresh', `ns${i % 3}`, `p${from + i}`, String(from + i), 'f1'),
      );
    await store.cache.apply([{ type: 'snapshotBegin', scope, snapshotId: 'f1' }, ...batch(0)], at(1));
    await store.cache.apply([...batch(300), pod('acc-fresh', 'ns0', 'p0', '999', 'f1')], at(2));
    const outcome = await store.cache.apply(
      [{ type: 'snapshotEnd', scope, snapshotId: 'f1', resourceVersion: '1000' }],
      at(3),
    );
    expect(outcome.deleted).toBe(0);
    expect(await store.cache.count('acc-fresh')).toBe(600);
    const [first] = await store.cache.objects([
      { account: 'acc-fresh', group: '', kind: 'Pod', namespace: 'ns0', name: 'p0' },
    ]);
    expect(first?.resourceVersion).toBe('999');
  });

  it('stores a relist into an empty scope although an object of it was written meanwhile', async () => {
    const scope = podScope('acc-raced');
    await store.cache.apply([{ type: 'snapshotBegin', scope, snapshotId: 'r1' }], at(1));
    // An on-demand read lands first: the relist's copy of that key must replace it, not fail.
    const { type: _, snapshotId: __, ...read } = pod('acc-raced', 'ns1', 'b', '5');
    expect(await store.cache.refresh(read, at(2))).toBe(true);
    await store.cache.apply(
      [pod('acc-raced', 'ns1', 'a', '6', 'r1'), pod('acc-raced', 'ns1', 'b', '7', 'r1')],
      at(3),
    );
    await store.cache.apply([{ type: 'snapshotEnd', scope, snapshotId: 'r1', resourceVersion: '8' }], at(4));
    const stored = await store.cache.resources('acc-raced');
    expect(stored.map((r) => `${r.name}@${r.resourceVersion}`)).toEqual(['a@6', 'b@7']);
  });

  it('limits a namespaced snapshot to its namespace', async () => {
    await store.cache.apply([pod('acc-ns', 'ns1', 'a', '1'), pod('acc-ns', 'ns2', 'b', '2')], at(1));
    await store.cache.apply(
      [
        { type: 'snapshotBegin', scope: podScope('acc-ns', 'ns1'), snapshotId: 's1' },
        { type: 'snapshotEnd', scope: podScope('acc-ns', 'ns1'), snapshotId: 's1', resourceVersion: '7' },
      ],
      at(2),
    );
    expect(await names(store, 'acc-ns')).toEqual(['ns2/b']);
  });

  it('deletes nothing for a snapshot end whose begin it never saw', async () => {
    await store.cache.apply([pod('acc-unmatched', 'ns1', 'a', '1')], at(1));
    const outcome = await store.cache.apply(
      [{ type: 'snapshotEnd', scope: podScope('acc-unmatched'), snapshotId: 'lost', resourceVersion: '9' }],
      at(2),
    );
    expect(outcome.unmatchedSnapshotEnds).toEqual([podScope('acc-unmatched')]);
    expect(await names(store, 'acc-unmatched')).toEqual(['ns1/a']);
    expect(await store.cache.resumeVersions(['acc-unmatched'], 0, at(2))).toEqual([]);
  });

  it('stores every character COPY treats specially, as it was sent', async () => {
    // Tabs, newlines and backslashes separate or escape COPY's text; `\\N` is its null.
    const name = 'tab\there\nnew\\line \\N';
    const object = { kind: 'Pod', metadata: { name }, data: { a: 'back\\slash "quoted"\r\n\t', b: '\\N' } };
    const spaced = `{\n\t"kind": "Pod",\r\n ${JSON.stringify(object).slice(1, -1).replace('"kind":"Pod",', '')}}`;
    await store.cache.apply([{ ...pod('acc-copy', 'ns1', name, '1'), body: spaced }], at(1));
    const [stored] = await store.cache.resources('acc-copy');
    expect(stored?.name).toBe(name);
    expect(stored?.body).toEqual(JSON.parse(spaced));
    expect(stored?.body).toEqual(object);
  });

  it('stores rows past one COPY chunk (1 MiB) and one object larger than a chunk, multi-byte text intact', async () => {
    // Two- to four-byte characters, so a row's bytes are not its characters.
    const text = 'é 日本 🚀 \\ '.repeat(60);
    const many = Array.from({ length: 400 }, (_, i) => {
      const change = pod('acc-chunks', 'ns1', `p${i}`, String(i));
      return { ...change, body: JSON.stringify({ ...JSON.parse(change.body), data: { text } }) };
    });
    const large = pod('acc-chunks', 'ns1', 'large', '500');
    const largeText = 'ü'.repeat(700_000);
    const largeBody = JSON.stringify({ ...JSON.parse(large.body), data: { largeText } });
    expect(Buffer.byteLength(largeBody)).toBeGreaterThan(1 << 20);
    await store.cache.apply(
      [...many.slice(0, 200), { ...large, body: largeBody }, ...many.slice(200)],
      at(1),
    );
    const stored = await store.cache.resources('acc-chunks');
    expect(stored).toHaveLength(401);
    const byName = new Map(stored.map((r) => [r.name, r.body]));
    expect(byName.get('large')).toEqual(JSON.parse(largeBody));
    for (const change of many) expect(byName.get(change.name)).toEqual(JSON.parse(change.body));
  });

  it('applies a batch all or nothing', async () => {
    // A row the database refuses (bodies are text, checked at the RPC boundary; a null body
    // breaks NOT NULL), after one it accepts: neither may be stored.
    const broken = { ...pod('acc-atomic', 'ns1', 'b', '2'), body: null as unknown as string };
    await expect(store.cache.apply([pod('acc-atomic', 'ns1', 'a', '1'), broken], at(1))).rejects.toThrow();
    expect(await names(store, 'acc-atomic')).toEqual([]);
  });

  it('returns resume versions with the time they were stored, leaving out those older than the max age', async () => {
    await store.cache.apply(
      [{ type: 'bookmark', scope: podScope('acc-resume', 'ns1'), resourceVersion: '100' }],
      at(0),
    );
    await store.cache.apply(
      [
        {
          type: 'bookmark',
          scope: { account: 'acc-resume', group: 'apps', kind: 'Deployment', namespace: 'ns1' },
          resourceVersion: '200',
        },
      ],
      at(200),
    );
    await store.cache.apply(
      [{ type: 'bookmark', scope: podScope('acc-resume', 'ns2'), resourceVersion: '300' }],
      at(250),
    );
    const all = await store.cache.resumeVersions(['acc-resume'], 0, at(300));
    // Ordered by account, API group ('' before 'apps'), kind, namespace.
    expect(
      all.map((v) => [v.scope.kind, v.scope.namespace, v.resourceVersion, v.updatedAt.toISOString()]),
    ).toEqual([
      ['Pod', 'ns1', '100', at(0).toISOString()],
      ['Pod', 'ns2', '300', at(250).toISOString()],
      ['Deployment', 'ns1', '200', at(200).toISOString()],
    ]);
    // 300 s max age at t=300: the version stored at t=0 is exactly 300 s old and kept; at t=301 it is not.
    const recent = await store.cache.resumeVersions(['acc-resume'], 300_000, at(301));
    expect(recent.map((v) => v.resourceVersion).sort()).toEqual(['200', '300']);
  });

  it('records an operation result once and reports redeliveries as duplicates', async () => {
    await store.operations.create(
      {
        id: 'op-1',
        account: 'acc-ops',
        agentId: 'agent-1',
        type: 'scale',
        payload: '{"kind":"Deployment","namespace":"default","name":"web","replicas":3}',
        deadline: at(60),
      },
      at(0),
    );
    const first = { id: 'op-1', outcome: 'succeeded' as const, result: '{"replicas":3}', error: null };
    expect(await store.operations.recordResult('agent-1', first, at(1))).toBe('recorded');
    const second = {
      id: 'op-1',
      outcome: 'failed' as const,
      result: null,
      error: { code: 'FAILED' as const, message: 'late copy' },
    };
    expect(await store.operations.recordResult('agent-1', second, at(2))).toBe('duplicate');
    expect(await store.operations.recordResult('agent-1', { ...first, id: 'op-unknown' }, at(2))).toBe(
      'unknown',
    );
    expect(await store.operations.recordResult('agent-2', first, at(2))).toBe('unknown');
    const stored = await store.operations.get('op-1');
    expect(stored).toMatchObject({
      state: 'succeeded',
      result: { replicas: 3 },
      error: null,
      call: {
        type: 'scale',
        payload: { kind: 'Deployment', namespace: 'default', name: 'web', replicas: 3 },
      },
    });
    expect(stored?.reportedAt?.toISOString()).toBe(at(1).toISOString());
    // A row whose payload does not match its type (written by another version) reads without a call:
    // it is shown, never sent again.
    await store.operations.create(
      {
        id: 'op-old',
        account: 'acc-ops',
        agentId: 'agent-1',
        type: 'scale',
        payload: '{"replicas":3}',
        deadline: at(60),
      },
      at(0),
    );
    expect(await store.operations.get('op-old')).toMatchObject({ type: 'scale', call: null });
  });

  it('keeps account registrations with permissions and the status the agent reports', async () => {
    expect(await store.agents.setAccountStatus('agent-1', 'acc-ops', 'FAILED', 'forbidden', at(5))).toBe(
      true,
    );
    expect(await store.agents.setAccountStatus('agent-2', 'acc-ops', 'ACTIVE', '', at(5))).toBe(false);
    expect(await store.agents.account('acc-ops')).toMatchObject({
      agentId: 'agent-1',
      permissions: { read: ['dev'], write: ['ops'] },
      kubernetesVersion: 'v1.33.1',
      status: 'FAILED',
      statusMessage: 'forbidden',
    });
  });

  describe('credentials', () => {
    const definition = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      type: 'orchestrator',
      definition: { name, type: 'orchestrator', context: 'ctx', ...extra },
      permissions: { read: ['dev'], write: ['ops'] },
    });

    it('keeps every write as a revision: versions 1, 2, 3, the delete last, newest first', async () => {
      const created = await store.credentials.create(definition('cred-life'), at(10));
      expect(created).toMatchObject({ version: 1, definition: { context: 'ctx' } });
      expect(
        await store.credentials.update(definition('cred-life', { context: 'other' }), at(11)),
      ).toMatchObject({
        version: 2,
        definition: { context: 'other' },
      });
      expect(await store.credentials.delete('cred-life', at(12))).toMatchObject({
        version: 3,
        deleted: true,
      });
      expect(await store.credentials.get('cred-life')).toBeUndefined();
      const history = await store.credentials.history('cred-life');
      expect(history.map((r) => [r.version, r.deleted, r.timestamp.getTime()])).toEqual([
        [3, true, at(12).getTime()],
        [2, false, at(11).getTime()],
        [1, false, at(10).getTime()],
      ]);
      expect(history[0]?.definition).toBeNull();
      // The delete keeps the permissions of what it deleted: they guard the history afterwards.
      expect(history[0]?.permissions).toEqual({ read: ['dev'], write: ['ops'] });
      expect(history[1]?.definition).toEqual({ name: 'cred-life', type: 'orchestrator', context: 'other' });
    });

    it('goes on counting when a deleted name is created again, and never dates a revision back', async () => {
      await store.credentials.create(definition('cred-again'), at(20));
      await store.credentials.delete('cred-again', at(21));
      // The clock stepped back: the revision keeps the order of the history.
      expect(await store.credentials.create(definition('cred-again'), at(15))).toMatchObject({ version: 3 });
      expect(await store.credentials.update(definition('cred-again'), at(14))).toMatchObject({ version: 4 });
      const history = await store.credentials.history('cred-again');
      expect(history.map((r) => [r.version, r.timestamp.getTime()])).toEqual([
        [4, at(21).getTime()],
        [3, at(21).getTime()],
        [2, at(21).getTime()],
        [1, at(20).getTime()],
      ]);
    });

    it('answers exists for a taken name and missing for an update or delete of nothing', async () => {
      await store.credentials.create(definition('cred-taken'), at(30));
      expect(await store.credentials.create(definition('cred-taken'), at(31))).toBe('exists');
      expect(await store.credentials.update(definition('cred-none'), at(31))).toBe('missing');
      expect(await store.credentials.delete('cred-none', at(31))).toBe('missing');
      expect((await store.credentials.history('cred-taken')).map((r) => r.version)).toEqual([1]);
      expect(await store.credentials.history('cred-none')).toEqual([]);
    });

    it('lets one of several concurrent creates of a name win, and orders concurrent updates', async () => {
      const creates = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          store.credentials.create(definition('cred-race', { context: `c${n}` }), at(40)),
        ),
      );
      expect(creates.filter((c) => c !== 'exists')).toHaveLength(1);
      expect((await store.credentials.history('cred-race')).map((r) => r.version)).toEqual([1]);
      await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          store.credentials.update(definition('cred-race', { context: `u${n}` }), at(41)),
        ),
      );
      const history = await store.credentials.history('cred-race');
      expect(history.map((r) => r.version)).toEqual([6, 5, 4, 3, 2, 1]);
      // The current definition is the last revision's.
      expect((await store.credentials.get('cred-race'))?.definition).toEqual(history[0]?.definition);
    });

    it('pages definitions of a type by name, byte-wise, from an inclusive start or after a name', async () => {
      for (const name of ['page-b', 'Page-Z', 'page-a', 'page-a.1', 'page_c'])
        await store.credentials.create(definition(name), at(50));
      await store.credentials.create({ ...definition('page-other'), type: 'other' }, at(50));
      const names = async (page: { limit: number; startingAt?: string; after?: string }) =>
        (await store.credentials.listByType('orchestrator', page))
          .map((c) => c.name)
          .filter((n) => n.toLowerCase().startsWith('page'));
      expect(await names({ limit: 100, startingAt: 'P' })).toEqual([
        'Page-Z',
        'page-a',
        'page-a.1',
        'page-b',
        'page_c',
      ]);
      expect(await names({ limit: 2, startingAt: 'page-a.1' })).toEqual(['page-a.1', 'page-b']);
      expect(await names({ limit: 2, after: 'page-a.1' })).toEqual(['page-b', 'page_c']);
      expect((await store.credentials.listByType('other', { limit: 10 })).map((c) => c.name)).toEqual([
        'page-other',
      ]);
    });
  });
});
