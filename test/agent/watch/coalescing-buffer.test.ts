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
});
