// The built-in analysis provider's judgment, measure by measure, on pod objects as the agent lists
// them: what passes, what fails, and the words a deployment's log shows for each.
import { describe, expect, it } from 'vitest';
import { judge } from '../../../src/cloudctl/deployments/run/analysis/builtin-judgment.ts';
import { podHealth } from '../../../src/cloudctl/deployments/run/analysis/pod-health.ts';

function pod(
  name: string,
  options: { ready?: boolean; restarts?: number; waiting?: string; lastEnd?: string } = {},
) {
  return {
    metadata: { name },
    status: {
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
      containerStatuses: [
        {
          name: 'web',
          restartCount: options.restarts ?? 0,
          ...(options.waiting === undefined ? {} : { state: { waiting: { reason: options.waiting } } }),
          ...(options.lastEnd === undefined
            ? {}
            : { lastState: { terminated: { reason: options.lastEnd } } }),
        },
      ],
    },
  };
}

const q = (
  measure: Parameters<typeof judge>[0][number]['measure'],
  limits: { upperLimit?: number; lowerLimit?: number } = {},
) => ({
  name: measure,
  measure,
  ...limits,
});

describe('the built-in judgment', () => {
  it('passes healthy pods with the default limits, saying what each measure kept', () => {
    const current = { pods: podHealth([pod('a'), pod('b', { restarts: 1 })]), warnings: [] };
    const judgment = judge(
      [q('restarts'), q('oomKills'), q('crashLoops'), q('readyRatio'), q('warningEvents')],
      current,
      undefined,
    );
    expect(judgment.passed).toBe(true);
    expect(judgment.results.map((r) => r.words)).toEqual([
      'restarts 1 ≤ 2',
      'oomKills 0 ≤ 0',
      'crashLoops 0 ≤ 0',
      'readyRatio 1 ≥ 0.9',
      'warningEvents 0 ≤ 5',
    ]);
  });

  it('fails OOM kills and crash loops naming the containers, and restarts naming the pods', () => {
    const current = {
      pods: podHealth([
        pod('a', { restarts: 4, waiting: 'CrashLoopBackOff', lastEnd: 'OOMKilled' }),
        pod('b'),
      ]),
      warnings: [],
    };
    const judgment = judge([q('restarts'), q('oomKills'), q('crashLoops')], current, undefined);
    expect(judgment.passed).toBe(false);
    expect(judgment.results.map((r) => [r.passed, r.words])).toEqual([
      [false, 'restarts 4 > upperLimit 2 (a: 4)'],
      [false, 'oomKills 1 > upperLimit 0 (a/web)'],
      [false, 'crashLoops 1 > upperLimit 0 (a/web)'],
    ]);
  });

  it('holds the ready share against the old version, not against all pods', () => {
    const half = { pods: podHealth([pod('n1'), pod('n2', { ready: false })]), warnings: [] };
    const oldHalf = { pods: podHealth([pod('o1'), pod('o2', { ready: false })]), warnings: [] };
    const oldWhole = { pods: podHealth([pod('o1'), pod('o2')]), warnings: [] };
    expect(judge([q('readyRatio')], half, oldHalf).results[0]?.words).toBe('readyRatio 1 ≥ 0.9');
    expect(judge([q('readyRatio')], half, oldWhole).results[0]).toMatchObject({
      passed: false,
      words: 'readyRatio 0.5 < lowerLimit 0.9 (1 of 2 new pods ready, 2 of 2 old)',
    });
  });

  it("uses a query's own limits, and counts Warning events", () => {
    const current = {
      pods: podHealth([pod('a')]),
      warnings: ['a: BackOff: back-off restarting', 'a: Unhealthy: probe failed'],
    };
    const judgment = judge([{ name: 'quiet', measure: 'warningEvents', upperLimit: 1 }], current, undefined);
    expect(judgment.results[0]).toMatchObject({
      passed: false,
      words:
        'quiet (warningEvents) 2 > upperLimit 1 (a: BackOff: back-off restarting, a: Unhealthy: probe failed)',
    });
  });
});
