// removeOld: every previous version of the target's workloads scaled to 0.
import type { StepKind } from './step-kind.ts';

export const removeOldStep: StepKind = async (step, run) => {
  let index = 0;
  const removed: string[] = [];
  for (const w of run.target.workloads ?? []) {
    for (const old of w.previous) {
      await run.scale(step.operationIds, index++, w.namespace, old.name, 0);
      removed.push(old.name);
    }
  }
  return removed.length === 0 ? 'no old version' : `scaled to 0: ${removed.join(', ')}`;
};
