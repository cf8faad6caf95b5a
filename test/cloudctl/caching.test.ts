// The caching service: batches are stored and acknowledged in order, snapshots delete what a relist
// lacked, resume versions come back with their timestamps, and an agent writes only its accounts.
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CacheItem, fromTimestamp } from '../../src/proto/index.ts';
import {
  isServiceError,
  startTestControlPlane,
  TestAgent,
  TestAgents,
  type TestControlPlane,
} from './harness.ts';

let cp: TestControlPlane;

const testAgents = new TestAgents();
const connectedAgent = (accounts: string[]) => testAgents.connect(cp.address, accounts);

function podEvent(
  account: string,
  namespace: string,
  name: string,
  resourceVersion: string,
  type: 'ADDED' | 'MODIFIED' | 'DELETED' = 'ADDED',
  snapshotId = '',
): CacheItem {
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, resourceVersion } };
  return {
    event: {
      account,
      gvk: { group: '', version: 'v1', kind: 'Pod' },
      namespace,
      name,
      resourceVersion,
      type,
      object: type === 'DELETED' ? Buffer.alloc(0) : Buffer.from(JSON.stringify(object)),
      snapshotId,
    },
  };
}

beforeAll(async () => {
  cp = await startTestControlPlane();
});

afterEach(() => {
  testAgents.closeAll();
});

afterAll(async () => {
  await cp?.close();
});

describe('cache publishing', () => {
  it('stores resource events and acknowledges every batch in order', async () => {
    const a = await connectedAgent(['cache-a']);
    const acks = await a.publish([
      {
        sequence: 1,
        items: [podEvent('cache-a', 'ns1', 'web-1', '10'), podEvent('cache-a', 'ns1', 'web-2', '11')],
      },
      { sequence: 2, items: [podEvent('cache-a', 'ns1', 'web-1', '12', 'MODIFIED')] },
      { sequence: 3, items: [podEvent('cache-a', 'ns1', 'web-2', '13', 'DELETED')] },
    ]);
    expect(acks.map((ack) => ack.sequence)).toEqual(['1', '2', '3']);
    const stored = await cp.plane.store.cache.resources('cache-a');
    expect(stored.map((r) => [r.name, r.resourceVersion])).toEqual([['web-1', '12']]);
    expect(stored[0]?.body).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'web-1', resourceVersion: '12' },
    });
  });

  it('deletes what a snapshot lacked when the snapshot ends', async () => {
    const a = await connectedAgent(['cache-b']);
    const scope = { account: 'cache-b', group: '', kind: 'Pod', namespace: '' };
    await a.publish([
      {
        sequence: 1,
        items: [podEvent('cache-b', 'ns1', 'old', '1'), podEvent('cache-b', 'ns2', 'kept', '2')],
      },
    ]);
    await a.publish([
      { sequence: 1, items: [{ snapshotBegin: { scope, snapshotId: 'relist-1' } }] },
      { sequence: 2, items: [podEvent('cache-b', 'ns2', 'kept', '5', 'ADDED', 'relist-1')] },
      { sequence: 3, items: [{ snapshotEnd: { scope, snapshotId: 'relist-1', resourceVersion: '6' } }] },
    ]);
    expect((await cp.plane.store.cache.resources('cache-b')).map((r) => `${r.namespace}/${r.name}`)).toEqual([
      'ns2/kept',
    ]);
  });

  it('returns resume versions per scope with the time they were stored', async () => {
    const a = await connectedAgent(['cache-c']);
    const before = Date.now();
    await a.publish([
      {
        sequence: 1,
        items: [
          {
            bookmark: {
              scope: { account: 'cache-c', group: 'apps', kind: 'Deployment', namespace: 'ns1' },
              resourceVersion: '77',
            },
          },
        ],
      },
    ]);
    const { versions } = await a.resumeVersions(['cache-c'], 300_000);
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({
      scope: { account: 'cache-c', group: 'apps', kind: 'Deployment', namespace: 'ns1' },
      resourceVersion: '77',
    });
    const updatedAt = versions[0]?.updatedAt ? fromTimestamp(versions[0].updatedAt).getTime() : 0;
    expect(updatedAt).toBeGreaterThanOrEqual(before - 1);
    expect(updatedAt).toBeLessThanOrEqual(Date.now());
  });

  it('refuses events for an account the agent does not serve, storing nothing of the batch', async () => {
    await connectedAgent(['cache-d']);
    const other = await connectedAgent(['cache-d']);
    const error = await other
      .publish([
        {
          sequence: 1,
          items: [podEvent('cache-d', 'ns1', 'a', '1'), podEvent('someone-else', 'ns1', 'b', '1')],
        },
      ])
      .catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe(status.PERMISSION_DENIED);
    expect(await cp.plane.store.cache.resources('cache-d')).toEqual([]);
    const query = await other.resumeVersions(['someone-else']).catch((e: unknown) => e);
    expect(isServiceError(query) && query.code).toBe(status.PERMISSION_DENIED);
  });

  it.each([
    ['{oops', 'expected a member name at byte 1'],
    ['{"a":tru}', 'unexpected "tru" at byte 5'],
    ['{"a":"\\q"}', 'bad escape at byte 6'],
    ['[{"a":1}]', 'expected an object at byte 0'],
  ])(
    'refuses an object that is not one JSON object with INVALID_ARGUMENT, saying where: %s',
    async (text, where) => {
      const a = await connectedAgent(['cache-e']);
      const bad = podEvent('cache-e', 'ns1', 'a', '1');
      if (bad.event) bad.event.object = Buffer.from(text);
      const error = await a.publish([{ sequence: 1, items: [bad] }]).catch((e: unknown) => e);
      expect(isServiceError(error) && error.code).toBe(status.INVALID_ARGUMENT);
      expect(isServiceError(error) && error.details).toBe(`items[0]: object is not a JSON object: ${where}`);
      expect(await cp.plane.store.cache.resources('cache-e')).toEqual([]);
    },
  );

  it('refuses a bad object in a later batch by its place in that batch, and stores nothing of that batch', async () => {
    // Batches that queued while an earlier one committed are applied together: the refusal still
    // names the item by its place in its own batch, not in the group.
    const a = await connectedAgent(['cache-g']);
    const bad = podEvent('cache-g', 'ns1', 'bad', '3');
    if (bad.event) bad.event.object = Buffer.from('{oops');
    const error = await a
      .publish([
        { sequence: 1, items: [podEvent('cache-g', 'ns1', 'first', '1')] },
        { sequence: 2, items: [podEvent('cache-g', 'ns1', 'second', '2'), bad] },
      ])
      .catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe(status.INVALID_ARGUMENT);
    expect(isServiceError(error) && error.details).toBe(
      'items[1]: object is not a JSON object: expected a member name at byte 1',
    );
    const stored = (await cp.plane.store.cache.resources('cache-g')).map((r) => r.name);
    expect(stored).not.toContain('second');
    expect(stored).not.toContain('bad');
  });

  it('refuses an unauthenticated publisher', async () => {
    const anonymous = new TestAgent(cp.address);
    testAgents.track(anonymous);
    const error = await anonymous
      .publish([{ sequence: 1, items: [podEvent('cache-a', 'ns1', 'x', '1')] }])
      .catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe(status.UNAUTHENTICATED);
  });
});
