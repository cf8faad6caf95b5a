// The watch hub over cloudctl's real stores (PGlite in memory): a position older than the kept window
// gets a `reset` (TOO_OLD) while one inside it resumes with exactly what followed; a client that reads
// nothing is ended with `closed` (SLOW_CLIENT) once its buffer is full, and never holds more than it
// plus one event.
import { once } from 'node:events';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheChange } from '../../../src/cloudctl/caching/index.ts';
import { type CloudctlStores, openStores } from '../../../src/cloudctl/cloudctl-stores.ts';
import { createCloudctlMetrics } from '../../../src/cloudctl/observability/index.ts';
import type { WatchClient } from '../../../src/cloudctl/watch/watch-client.ts';
import { watchFilter } from '../../../src/cloudctl/watch/watch-filter.ts';
import { WatchHub } from '../../../src/cloudctl/watch/watch-hub.ts';
import { WatchReader } from '../../../src/cloudctl/watch/watch-reader.ts';

const admin = { name: 'ada', roles: [], admin: true, anonymous: false };
const T0 = new Date('2026-11-28T12:00:00Z');

let stores: CloudctlStores;
beforeAll(async () => {
  stores = await openStores({ kind: 'pglite', dataDir: 'memory://' });
}, 60_000);
afterAll(async () => {
  await stores?.close();
});

function hub(
  bufferBytes = 1_048_576,
  metrics = createCloudctlMetrics(new Registry(), { sessions: () => 0 }),
  readable: () => Promise<ReadonlySet<string> | null> = async () => null,
): WatchHub {
  return new WatchHub({
    readable,
    metrics: { clients: metrics.watchClients, closed: metrics.watchClosed },
    reader: new WatchReader(stores),
    horizon: () => stores.watch.horizon(),
    floor: () => stores.watch.floor(),
    heartbeatMs: 60_000,
    bufferBytes,
    logger: pino({ level: 'silent' }),
  });
}

const upsert = (name: string, body: Record<string, unknown> = {}): CacheChange => ({
  type: 'upsert',
  account: 'acc',
  group: '',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
  version: 'v1',
  resourceVersion: '1',
  body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, ...body }),
  snapshotId: null,
});

/** The events written to a client's stream so far, without reading them off it. */
function framesOf(client: WatchClient): { id?: string; event: string; data: { [key: string]: unknown } }[] {
  const text = client.stream.read()?.toString() ?? '';
  return text
    .split('\n\n')
    .filter((frame: string) => frame.includes('data: '))
    .map((frame: string) => {
      const line = (prefix: string) =>
        frame
          .split('\n')
          .find((l) => l.startsWith(prefix))
          ?.slice(prefix.length);
      const id = line('id: ');
      return {
        ...(id === undefined ? {} : { id }),
        event: line('event: ') ?? '',
        data: JSON.parse(line('data: ') ?? '{}'),
      };
    });
}

const everything = watchFilter({});

describe('the watch hub', () => {
  it('resets a position older than the kept window, and resumes one inside it with exactly what followed', async () => {
    await stores.cache.apply([upsert('a'), upsert('b')], T0);
    await stores.cache.apply(
      [{ type: 'delete', account: 'acc', group: '', kind: 'ConfigMap', namespace: 'ns', name: 'a' }],
      T0,
    );
    const beforePrune = await stores.watch.horizon();
    // Removals logged before an hour from now are dropped: the floor rises past the removal of `a`.
    expect(await stores.watch.prune(new Date(T0.getTime() + 3_600_000))).toBeGreaterThanOrEqual(1);
    const floor = await stores.watch.floor();
    expect(floor).toBeGreaterThan(0);
    expect(floor).toBeLessThanOrEqual(beforePrune);
    const watching = hub();
    try {
      const old = await watching.join({ user: admin, filter: everything, since: String(floor - 1) });
      const [position, reset] = framesOf(old);
      expect(position?.event).toBe('position');
      expect(reset).toMatchObject({ event: 'reset', data: { reason: 'TOO_OLD' } });
      old.stream.destroy();

      const resumed = await watching.join({ user: admin, filter: everything, since: String(floor) });
      await stores.cache.apply([upsert('c')], T0);
      watching.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const frames = framesOf(resumed);
      expect(frames[0]).toMatchObject({ event: 'position', data: { position: String(floor) } });
      expect(frames.some((f) => f.event === 'reset')).toBe(false);
      const objects = frames.filter((f) => f.event === 'object').map((f) => f.data.name);
      // `b` was written after the removal of `a` only if its number is above the floor; `c` always follows.
      expect(objects.at(-1)).toBe('c');
      expect(objects.filter((n) => n === 'c')).toHaveLength(1);
      const ids = frames.filter((f) => f.event === 'object').map((f) => Number(f.id));
      expect(ids.every((id) => id > floor)).toBe(true);
    } finally {
      watching.close();
    }
  });

  it("streams a pod without a moniker as its server group's, changed and removed, to a watch of the application", async () => {
    const watching = hub();
    try {
      const client = await watching.join({
        user: admin,
        filter: watchFilter({ application: 'shop' }),
        since: undefined,
      });
      const replicaSet = {
        type: 'upsert' as const,
        account: 'acc',
        group: 'apps',
        kind: 'ReplicaSet',
        namespace: 'ns',
        name: 'shop-v002',
        version: 'v1',
        resourceVersion: '5',
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: 'shop-v002',
            namespace: 'ns',
            uid: 'rs-uid',
            annotations: { 'moniker.spinnaker.io/application': 'shop', 'moniker.spinnaker.io/sequence': '2' },
          },
          spec: { replicas: 1 },
        }),
        snapshotId: null,
      };
      const owned = {
        kind: 'ReplicaSet',
        name: 'shop-v002',
        uid: 'rs-uid',
        controller: true,
        apiVersion: 'apps/v1',
      };
      const pod = {
        ...upsert('shop-v002-x1'),
        kind: 'Pod',
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'shop-v002-x1', namespace: 'ns', ownerReferences: [owned] },
          spec: { nodeName: 'node-1' },
        }),
      };
      await stores.cache.apply([replicaSet, pod], T0);
      // Read before the removal: a pod removed before the hub reads it is streamed as its removal alone.
      watching.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stores.cache.apply(
        [{ type: 'delete', account: 'acc', group: '', kind: 'Pod', namespace: 'ns', name: 'shop-v002-x1' }],
        T0,
      );
      watching.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const objects = framesOf(client).filter((f) => f.event === 'object');
      expect(objects.map((f) => [f.data.name, f.data.type])).toEqual([
        ['shop-v002', 'changed'],
        ['shop-v002-x1', 'changed'],
        ['shop-v002-x1', 'removed'],
      ]);
      expect(objects[1]?.data).toMatchObject({
        moniker: { app: 'shop', sequence: 2 },
        figures: { node: 'node-1' },
      });
      expect(objects[2]?.data).toMatchObject({ moniker: { app: 'shop' } });
    } finally {
      watching.close();
    }
  });

  it('stops streaming an account as soon as its user may no longer read it, and starts again when they may', async () => {
    let mayRead: ReadonlySet<string> = new Set(['acc']);
    const metrics = createCloudctlMetrics(new Registry(), { sessions: () => 0 });
    const watching = hub(1_048_576, metrics, async () => mayRead);
    const settle = async () => {
      watching.wake();
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    try {
      const client = await watching.join({
        user: { ...admin, admin: false },
        filter: everything,
        since: undefined,
      });
      await stores.cache.apply([upsert('while-readable')], T0);
      await settle();
      mayRead = new Set();
      await stores.cache.apply([upsert('while-refused')], T0);
      await settle();
      mayRead = new Set(['acc']);
      await stores.cache.apply([upsert('readable-again')], T0);
      await settle();
      const names = framesOf(client)
        .filter((f) => f.event === 'object')
        .map((f) => f.data.name);
      expect(names).toEqual(['while-readable', 'readable-again']);
    } finally {
      watching.close();
    }
  });

  it('ends a client that reads nothing once its buffer is full, holding no more than the buffer and one event', async () => {
    const bufferBytes = 65_536;
    const metrics = createCloudctlMetrics(new Registry(), { sessions: () => 0 });
    const watching = hub(bufferBytes, metrics);
    try {
      const client = await watching.join({ user: admin, filter: everything, since: undefined });
      // Nothing reads the client's stream; an event is some 500 bytes (the body is not sent), so
      // 200 KiB of them are more than the buffer and what the stream's readable side holds.
      let most = 0;
      for (let round = 0; round < 40 && !client.ended; round++) {
        await stores.cache.apply(
          Array.from({ length: 25 }, (_, i) => upsert(`slow-${round}-${i}`)),
          T0,
        );
        watching.wake();
        await new Promise((resolve) => setTimeout(resolve, 100));
        most = Math.max(most, client.stream.writableLength);
      }
      expect(client.ended).toBe(true);
      expect(most).toBeLessThan(bufferBytes + 8_192);
      const text: string[] = [];
      client.stream.on('data', (chunk: Buffer) => text.push(chunk.toString()));
      const closed = once(client.stream, 'close');
      await once(client.stream, 'end');
      await closed;
      const last = text.join('').trim().split('\n\n').at(-1) ?? '';
      expect(last).toContain('event: closed');
      expect(last).toContain('"reason":"SLOW_CLIENT"');
      expect(watching.clients).toBe(0);
      expect((await metrics.watchClients.get()).values[0]?.value).toBe(0);
      expect((await metrics.watchClosed.get()).values).toEqual([
        expect.objectContaining({ labels: { reason: 'SLOW_CLIENT' }, value: 1 }),
      ]);
    } finally {
      watching.close();
    }
  });
});
