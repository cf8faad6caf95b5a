import { describe, expect, it } from 'vitest';
import { encodeCacheBatch } from '../../../src/agent/watch/cache-batch-encoding.ts';
import type { CacheItem, WatchScope } from '../../../src/agent/watch/cache-item.ts';
import { loadContract } from '../../../src/proto/index.ts';

const publish = () => loadContract().proto.orchagent.v1.Caching.service.Publish;

/** What cloudctl reads from the bytes: the contract's own deserializer. */
const decoded = (bytes: Buffer) => publish().requestDeserialize(bytes);

const scope: WatchScope = { account: 'prod-eu', group: '', kind: 'ConfigMap', namespace: '' };
const objectBytes = (text: string) => Buffer.from(text).toString('latin1');

describe('a CacheBatch encoded by hand', () => {
  it('reads back, item by item, as the contract describes it', () => {
    // Non-ASCII in names and in the object (its UTF-8 bytes held byte for character), a 20 KiB
    // object (a three-byte length), a deletion (no object), a drift with an empty path, markers,
    // empty strings left out, and a sequence past 32 bits.
    const large = objectBytes(JSON.stringify({ data: { k: 'é'.repeat(10_000) } }));
    const items: CacheItem[] = [
      { type: 'snapshotBegin', scope, snapshotId: 'snap-1' },
      {
        type: 'event',
        scope,
        version: 'v1',
        namespace: 'naïve',
        name: 'ünïcode-名前',
        resourceVersion: '1234',
        event: 'ADDED',
        object: large,
        snapshotId: 'snap-1',
      },
      {
        type: 'event',
        scope: { ...scope, group: 'apps', kind: 'Deployment' },
        version: 'v1',
        namespace: 'web',
        name: 'api',
        resourceVersion: '1300',
        event: 'MODIFIED',
        object: objectBytes('{"kind":"Deployment","metadata":{"name":"api"}}'),
        snapshotId: '',
        drift: {
          managers: [
            {
              manager: 'kubectl-edit',
              operation: 'Update',
              time: null,
              paths: ['spec.replicas', ''],
              morePaths: 3,
            },
            {
              manager: 'hpa',
              operation: 'Update',
              subresource: 'scale',
              time: '2026-11-28T00:00:00Z',
              paths: [],
              morePaths: 0,
            },
          ],
        },
      },
      {
        type: 'event',
        scope,
        version: 'v1',
        namespace: 'web',
        name: 'gone',
        resourceVersion: '1301',
        event: 'DELETED',
        object: objectBytes('{"ignored":true}'),
        snapshotId: '',
      },
      { type: 'snapshotEnd', scope, snapshotId: 'snap-1', resourceVersion: '1302' },
      { type: 'bookmark', scope: { ...scope, namespace: 'web' }, resourceVersion: '1400' },
    ];
    const batch = decoded(encodeCacheBatch({ sequence: 2 ** 40 + 5, items }));
    expect(batch.sequence).toBe(String(2 ** 40 + 5));
    expect(batch.items.map((i) => i.item)).toEqual([
      'snapshotBegin',
      'event',
      'event',
      'event',
      'snapshotEnd',
      'bookmark',
    ]);
    const [begin, added, modified, deleted, end, bookmark] = batch.items;
    expect(begin?.snapshotBegin).toEqual({ scope, snapshotId: 'snap-1' });
    expect(added?.event).toMatchObject({
      account: 'prod-eu',
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
      namespace: 'naïve',
      name: 'ünïcode-名前',
      resourceVersion: '1234',
      type: 'ADDED',
      snapshotId: 'snap-1',
      drift: null,
    });
    expect(added?.event?.object.toString('utf8')).toBe(JSON.stringify({ data: { k: 'é'.repeat(10_000) } }));
    expect(modified?.event?.gvk).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(modified?.event?.type).toBe('MODIFIED');
    expect(modified?.event?.drift?.managers).toEqual([
      {
        manager: 'kubectl-edit',
        operation: 'Update',
        subresource: '',
        time: '',
        paths: ['spec.replicas', ''],
        morePaths: 3,
      },
      {
        manager: 'hpa',
        operation: 'Update',
        subresource: 'scale',
        time: '2026-11-28T00:00:00Z',
        paths: [],
        morePaths: 0,
      },
    ]);
    // The contract: a deletion carries no object.
    expect(deleted?.event?.type).toBe('DELETED');
    expect(deleted?.event?.object.length).toBe(0);
    expect(end?.snapshotEnd).toEqual({ scope, snapshotId: 'snap-1', resourceVersion: '1302' });
    expect(bookmark?.bookmark).toEqual({ scope: { ...scope, namespace: 'web' }, resourceVersion: '1400' });
  });

  it('reads back as the encoding protobufjs writes for the same message (which keeps empty strings)', () => {
    const items: CacheItem[] = [
      {
        type: 'event',
        scope,
        version: 'v1',
        namespace: 'web',
        name: 'settings',
        resourceVersion: '77',
        event: 'ADDED',
        object: objectBytes('{"kind":"ConfigMap","data":{"a":"b"}}'),
        snapshotId: 's',
      },
      { type: 'bookmark', scope, resourceVersion: '78' },
    ];
    const message = {
      sequence: '9',
      items: [
        {
          event: {
            account: 'prod-eu',
            gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
            namespace: 'web',
            name: 'settings',
            resourceVersion: '77',
            type: 'ADDED' as const,
            object: Buffer.from('{"kind":"ConfigMap","data":{"a":"b"}}'),
            snapshotId: 's',
          },
        },
        { bookmark: { scope, resourceVersion: '78' } },
      ],
    };
    expect(decoded(encodeCacheBatch({ sequence: 9, items }))).toEqual(
      decoded(publish().requestSerialize(message)),
    );
  });

  it('an empty batch is its sequence alone', () => {
    expect(decoded(encodeCacheBatch({ sequence: 1, items: [] }))).toEqual({ sequence: '1', items: [] });
  });
});
