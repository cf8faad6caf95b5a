// Backoff: delays grow by the multiplier up to the maximum, spread by jitter, restart after reset,
// and a stopped backoff never calls back.
import { describe, expect, it } from 'vitest';
import { Backoff, type BackoffClock } from '../../src/lib/backoff.ts';

/** A clock that runs scheduled callbacks only when told, recording each delay. */
function manualClock() {
  const pending: Array<{ callback: () => void; ms: number; cancelled: boolean }> = [];
  const clock: BackoffClock = {
    schedule(callback, ms) {
      const entry = { callback, ms, cancelled: false };
      pending.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
  };
  const fire = () => {
    for (const entry of pending.splice(0)) if (!entry.cancelled) entry.callback();
  };
  return { clock, pending, fire };
}

// The spec's variant B defaults: 1 s base, ×1.6, 120 s max.
const options = { initialDelayMs: 1000, multiplier: 1.6, maxDelayMs: 120_000 };

describe('Backoff', () => {
  it('grows each delay by the multiplier and caps it at the maximum', () => {
    const { clock } = manualClock();
    const backoff = new Backoff(() => undefined, { ...options, jitter: 0, clock });
    const delays = Array.from({ length: 13 }, () => Math.round(backoff.runOnce()));
    expect(delays.slice(0, 4)).toEqual([1000, 1600, 2560, 4096]);
    expect(delays.at(-1)).toBe(120_000);
    expect(Math.max(...delays)).toBe(120_000);
  });

  it('spreads a delay over ±jitter of its value', () => {
    const { clock } = manualClock();
    const low = new Backoff(() => undefined, { ...options, jitter: 0.2, clock, random: () => 0 });
    const high = new Backoff(() => undefined, { ...options, jitter: 0.2, clock, random: () => 0.999_999 });
    expect(low.runOnce()).toBeCloseTo(800, 6);
    expect(high.runOnce()).toBeCloseTo(1200, 2);
  });

  it('calls back once per runOnce, after the delay, and starts again from the initial delay after reset', () => {
    const { clock, pending, fire } = manualClock();
    let calls = 0;
    const backoff = new Backoff(() => calls++, { ...options, jitter: 0, clock });
    backoff.runOnce();
    backoff.runOnce();
    expect(calls).toBe(0);
    expect(backoff.isRunning()).toBe(true);
    fire();
    // The second runOnce replaced the first timer.
    expect(calls).toBe(1);
    expect(pending).toEqual([]);
    backoff.reset();
    expect(backoff.runOnce()).toBe(1000);
  });

  it('never calls back once stopped', () => {
    const { clock, fire } = manualClock();
    let calls = 0;
    const backoff = new Backoff(() => calls++, { ...options, jitter: 0, clock });
    backoff.runOnce();
    backoff.stop();
    fire();
    expect(calls).toBe(0);
    expect(backoff.isRunning()).toBe(false);
  });
});
