// tasks.queueCheckFrequencyMs: a task that does not fit waits for the next queue check, even when a
// slot frees up before it; a task that fits starts at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TaskBudget } from '../../../src/agent/watch/index.ts';

/** Runs two tasks under a budget of one; returns when the second started, after the first ended. */
async function secondStartDelay(queueCheckFrequencyMs: number) {
  const budget = new TaskBudget({ totalBudget: 1, budgetPerAccount: 0, queueCheckFrequencyMs });
  let firstEnded = 0;
  let secondStarted = 0;
  const first = budget.run('a', async () => {
    await sleep(20);
    firstEnded = performance.now();
  });
  const second = budget.run('a', async () => {
    secondStarted = performance.now();
  });
  await Promise.all([first, second]);
  return { afterFirstEnded: secondStarted - firstEnded, peak: budget.peak };
}

describe('tasks.queueCheckFrequencyMs', () => {
  it('starts a waiting task at the next queue check, not when the slot frees', async () => {
    const slow = await secondStartDelay(600);
    // The check comes 600 ms after the second task queued; the first ended after about 20 ms.
    expect(slow.afterFirstEnded).toBeGreaterThanOrEqual(400);
    expect(slow.peak).toBe(1);
    const fast = await secondStartDelay(10);
    expect(fast.afterFirstEnded).toBeLessThan(slow.afterFirstEnded);
    expect(fast.peak).toBe(1);
  });

  it('starts a task that fits at once, without waiting for a check', async () => {
    const budget = new TaskBudget({ totalBudget: 2, budgetPerAccount: 0, queueCheckFrequencyMs: 60_000 });
    const started = performance.now();
    await budget.run('a', async () => undefined);
    await budget.run('a', async () => undefined);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('starts at one check every waiting task that fits then, in queue order', async () => {
    const budget = new TaskBudget({ totalBudget: 2, budgetPerAccount: 1, queueCheckFrequencyMs: 300 });
    const started = new Map<string, number>();
    const task = (name: string) => async () => {
      started.set(name, performance.now());
      await sleep(10);
    };
    // a1 runs; a2 waits for a's slot; b1 fits but queues behind a2 (no overtaking); b2 waits for b's.
    await Promise.all([
      budget.run('a', task('a1')),
      budget.run('a', task('a2')),
      budget.run('b', task('b1')),
      budget.run('b', task('b2')),
    ]);
    const at = (name: string) => started.get(name) ?? Number.NaN;
    expect([...started.keys()]).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(Math.abs(at('b1') - at('a2'))).toBeLessThan(150);
    expect(at('b2') - at('b1')).toBeGreaterThanOrEqual(200);
    expect(budget.peak).toBe(2);
  });
});
