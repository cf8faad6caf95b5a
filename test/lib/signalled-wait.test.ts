import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortableSettlers, untilWokenOrAborted } from '../../src/lib/signalled-wait.ts';

describe('signalled waits', () => {
  it('resolves when woken and takes its abort listener away', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 100; i++) await untilWokenOrAborted((wake) => setImmediate(wake), stop.signal);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('resolves when the signal aborts first, and at once when it already has', async () => {
    const stop = new AbortController();
    const waiting = untilWokenOrAborted(() => {}, stop.signal);
    stop.abort();
    await waiting;
    await untilWokenOrAborted(() => {}, stop.signal);
  });

  it('settles abortable promises without leaving listeners, and rejects on abort', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 100; i++) {
      const settlers = abortableSettlers<number>(stop.signal);
      settlers.resolve(i);
      expect(await settlers.promise).toBe(i);
    }
    const failed = abortableSettlers<void>(stop.signal);
    failed.reject(new Error('broken stream'));
    await expect(failed.promise).rejects.toThrow('broken stream');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    const pending = abortableSettlers<void>(stop.signal);
    stop.abort(new Error('stopping'));
    await expect(pending.promise).rejects.toThrow('stopping');
  });
});
