// removeOld: every previous version of the target's workloads scaled to 0.
import type { WriteCall } from '../deployment-planner.ts';
import { type StepContext, scaleCall } from './step-context.ts';
import type { StepKind, WritesOf } from './step-kind.ts';

function removals(run: StepContext): Array<{ name: string; call: WriteCall }> {
  return (run.target.workloads ?? []).flatMap((w) =>
    w.previous.map((old) => ({ name: old.name, call: scaleCall(w.namespace, old.name, 0) })),
  );
}

export const removeOldStep: StepKind = async (step, run) => {
  const removed = removals(run);
  for (const [index, { call }] of removed.entries()) await run.write(step, index, call);
  return removed.length === 0 ? 'no old version' : `scaled to 0: ${removed.map((r) => r.name).join(', ')}`;
};

export const removeOldWrites: WritesOf = async (_step, run) => ({
  calls: removals(run).map((r) => r.call),
  unknown: [],
});
