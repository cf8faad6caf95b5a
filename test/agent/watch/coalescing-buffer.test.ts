import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { CacheItem, ResourceEvent, WatchScope } from '../../../src/agent/watch/cache-item.ts';
import { CoalescingBuffer } from '../../../src/agent/watch/coalescing-buffer.ts';

const scope: WatchScope = { account: 'a', group: '', kind: 'ConfigMap', namespace: '' };

const event = (name: string, resourceVersion: string): ResourceEvent => ({
  type: 'event',
  scope,
  version: 'v1',
  namespace: 'ns',
  name,
  resourceVersion,
  event: 'MODIFIED',
  object: '{}',
  snapshotId: '',
});

/** An event whose object is `bytes` bytes of JSON in UTF-8 (`char` may take more than one). */
const sized = (name: string, bytes: number, char = 'x'): ResourceEvent => ({
  ...event(name, '1'),
  object: Buffer.from(char.repeat(bytes / Buffer.byteLength(char))).toString('latin1'),
});

const label = (item: CacheItem) =>
  item.type === 'event' ? `${item.name}@${item.resourceVersion}` : item.type;

describe('coalescing buffer', () => {
  it('keeps the latest state per object, in order, with markers as barriers', async () => {
    const buffer = new CoalescingBuffer(10);
    await buffer.put(event('a', '1'));
    await buffer.put(event('b', '2'));
    await buffer.put(event('a', '3'));
    await buffer.put({ type: 'bookmark', scope, resourceVersion: '3' });
    await buffer.put(event('a', '4'));
    expect(buffer.size).toBe(4);
    expect(buffer.takeNow(10).map(label)).toEqual(['b@2', 'a@3', 'bookmark', 'a@4']);
  });

  it('tryPut adds at once while there is room, coalescing as put does, and refuses when full', () => {
    const byCount = new CoalescingBuffer(2);
    expect(byCount.tryPut(event('a', '1'))).toBe(true);
    expect(byCount.tryPut(event('a', '2'))).toBe(true);
    expect(byCount.tryPut(event('b', '1'))).toBe(true);
    expect(byCount.tryPut(event('c', '1'))).toBe(false);
    expect(byCount.takeNow(10).map(label)).toEqual(['a@2', 'b@1']);
    // By bytes: the first item always fits; past the bound nothing more goes in.
    const byBytes = new CoalescingBuffer(10, 100);
    expect(byBytes.tryPut(sized('big', 150))).toBe(true);
    expect(byBytes.tryPut(sized('small', 1))).toBe(false);
    expect(byBytes.size).toBe(1);
  });

  it('makes producers wait while full and wakes them as items are taken', async () => {
    const buffer = new CoalescingBuffer(2);
    await buffer.put(event('a', '1'));
    await buffer.put(event('b', '1'));
    let stored = false;
    const third = buffer.put(event('c', '1')).then(() => {
      stored = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stored).toBe(false);
    expect(buffer.takeNow(1).map(label)).toEqual(['a@1']);
    await third;
    expect(buffer.takeNow(5).map(label)).toEqual(['b@1', 'c@1']);
  });

  it('leaves no listener on a long-lived signal however often producers and consumers wait', async () => {
    const buffer = new CoalescingBuffer(1);
    const stop = new AbortController();
    const consumer = (async () => {
      for (let taken = 0; taken < 1000; ) taken += (await buffer.take(1, stop.signal)).length;
    })();
    for (let i = 0; i < 1000; i++) await buffer.put(event(`o${i}`, String(i)), stop.signal);
    await consumer;
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('ends a waiting producer when its signal aborts', async () => {
    const buffer = new CoalescingBuffer(1);
    await buffer.put(event('a', '1'));
    const stop = new AbortController();
    const waiting = buffer.put(event('b', '1'), stop.signal);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(buffer.takeNow(5).map(label)).toEqual(['a@1']);
  });

  it('takes batches within a byte bound counted in UTF-8, markers included, but always the first item', async () => {
    const buffer = new CoalescingBuffer(100);
    const puts = [
      sized('a', 400),
      sized('b', 300, 'é'),
      { type: 'bookmark' as const, scope, resourceVersion: '1' },
      sized('c', 600, '語'),
      sized('d', 2000),
      sized('e', 100),
    ];
    for (const item of puts) await buffer.put(item);
    expect(buffer.bytes).toBe(3400);
    expect(buffer.takeNow(10, 1000).map(label)).toEqual(['a@1', 'b@1', 'bookmark']);
    expect(buffer.takeNow(10, 1000).map(label)).toEqual(['c@1']);
    // Larger than the bound on its own: taken alone rather than never.
    expect(buffer.takeNow(10, 1000).map(label)).toEqual(['d@1']);
    expect(buffer.takeNow(10, 1000).map(label)).toEqual(['e@1']);
    expect(buffer.bytes).toBe(0);
  });

  it('makes producers wait while it holds its byte bound, and coalescing frees the older bytes', async () => {
    const buffer = new CoalescingBuffer(100, 1000);
    await buffer.put(sized('a', 600));
    await buffer.put(sized('a', 500));
    expect(buffer.bytes).toBe(500);
    await buffer.put(sized('b', 500));
    let stored = false;
    const third = buffer.put(sized('c', 10)).then(() => {
      stored = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stored).toBe(false);
    expect(buffer.takeNow(1).map(label)).toEqual(['a@1']);
    await third;
    expect(buffer.bytes).toBe(510);
  });
});
