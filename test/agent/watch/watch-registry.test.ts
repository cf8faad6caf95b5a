// The watch registry behind /watches: `startedAt` is when a scope began and stays through its state
// changes (a relist, a backoff), `since` moves with each state.
import { describe, expect, it } from 'vitest';
import { WatchRegistry } from '../../../src/agent/watch/watch-registry.ts';

describe('WatchRegistry', () => {
  it('keeps when a scope started through its state changes, and says when it entered each state', () => {
    let now = Date.parse('2026-11-30T10:00:00.000Z');
    const registry = new WatchRegistry(() => new Date(now));
    registry.update('alpha', 'Pod', 'web', { state: 'listing' });
    now += 1500;
    registry.update('alpha', 'Pod', 'web', { state: 'watching', resourceVersion: '42' });
    now += 2000;
    registry.update('alpha', 'Pod', 'web', { state: 'backoff', lastError: 'closed' });
    now += 500;
    registry.update('alpha', 'Pod', 'web', { resourceVersion: '43' });
    expect(registry.list()).toEqual([
      {
        account: 'alpha',
        kind: 'Pod',
        namespace: 'web',
        state: 'backoff',
        resourceVersion: '43',
        events: 0,
        lastError: 'closed',
        startedAt: '2026-11-30T10:00:00.000Z',
        since: '2026-11-30T10:00:03.500Z',
      },
    ]);
  });

  it('starts a scope removed and registered again afresh', () => {
    let now = Date.parse('2026-11-30T10:00:00.000Z');
    const registry = new WatchRegistry(() => new Date(now));
    registry.update('alpha', 'Pod', 'web', { state: 'watching' });
    registry.remove('alpha');
    now += 60_000;
    registry.update('alpha', 'Pod', 'web', { state: 'listing' });
    expect(registry.list()).toMatchObject([{ startedAt: '2026-11-30T10:01:00.000Z' }]);
  });
});
