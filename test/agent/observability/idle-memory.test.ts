import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/agent/agent-runtime.ts';
import { IdleMemoryRelease } from '../../../src/agent/observability/idle-memory.ts';

function release(syncedStates: boolean[], gc: NodeJS.GCFunction | undefined) {
  const states = [...syncedStates];
  const released: number[] = [];
  const idle = new IdleMemoryRelease({
    synced: () => states.shift() ?? false,
    gc,
    rss: () => 100,
    now: () => 0,
    onReleased: (figures) => released.push(figures.rssBeforeBytes),
  });
  const results = syncedStates.map(() => idle.check());
  return { results, released };
}

describe('IdleMemoryRelease', () => {
  it('collects once each time the agent becomes synced, not while it stays synced', () => {
    const calls: unknown[] = [];
    const gc = ((options?: unknown) => {
      calls.push(options);
    }) as NodeJS.GCFunction;
    const { results, released } = release([false, true, true, false, false, true, true], gc);
    expect(results).toEqual([false, true, false, false, false, true, false]);
    expect(calls).toEqual([
      { type: 'major', execution: 'sync', flavor: 'last-resort' },
      { type: 'major', execution: 'sync', flavor: 'last-resort' },
    ]);
    expect(released).toHaveLength(2);
  });

  it('does nothing when Node runs without --expose-gc', () => {
    expect(release([true, false, true], undefined).results).toEqual([false, false, false]);
  });

  it("shrinks V8's young generation in a process started with the agent's flags", () => {
    // A process that grows its young generation (many short-lived objects, some surviving), then
    // reports the new space's resident size before and after one release.
    const script = `
      import v8 from 'node:v8';
      import { IdleMemoryRelease } from ${JSON.stringify(new URL('../../../src/agent/observability/idle-memory.ts', import.meta.url).href)};
      const kept = [];
      for (let i = 0; i < 400_000; i++) { kept.push({ i, s: 'x'.repeat(20) + i }); if (kept.length > 50_000) kept.length = 0; }
      const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').physical_space_size;
      const before = newSpace();
      new IdleMemoryRelease({ synced: () => true, gc: globalThis.gc, rss: () => 0, now: () => 0, onReleased: () => {} }).check();
      console.log(JSON.stringify({ before, after: newSpace() }));
    `;
    const out = execFileSync(process.execPath, [...AGENT_NODE_FLAGS, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const { before, after } = JSON.parse(out) as { before: number; after: number };
    expect(before).toBeGreaterThan(8 * 1024 * 1024);
    expect(after).toBeLessThan(2 * 1024 * 1024);
  });
});
