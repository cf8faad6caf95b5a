// setWeight (and promote, at 100): the new version scaled to its share of the desired replicas and
// waited ready, the previous version scaled down by as much, older ones to 0. A version that does
// not get ready in time rolls the target back.
import type { StepState } from '../deployment-progress.ts';
import { stepWeight } from '../step-layout.ts';
import type { StepContext } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

async function setWeight(run: StepContext, step: StepState, weight: number): Promise<string> {
  const deadline = await run.readyDeadline(step);
  const ids = step.operationIds;
  let index = 0;
  const done: string[] = [];
  for (const w of run.target.workloads ?? []) {
    const replicas = Math.ceil((w.desired * weight) / 100);
    await run.scale(ids, index++, w.namespace, w.replicaSet, replicas);
    await run.waitReady(w, w.replicaSet, replicas, deadline, true);
    // The previous version gives up what the new one took (by replica ratio); older ones go.
    const [live, ...older] = w.previous;
    if (live !== undefined)
      await run.scale(ids, index++, w.namespace, live.name, Math.max(0, w.desired - replicas));
    for (const old of older) await run.scale(ids, index++, w.namespace, old.name, 0);
    done.push(`${w.replicaSet} at ${replicas} of ${w.desired}`);
  }
  return done.join(', ');
}

export const setWeightStep: StepKind = (step, run) =>
  setWeight(run, step, stepWeight(run.deps.file, run.target.name, step) ?? 0);

export const promoteStep: StepKind = (step, run) => setWeight(run, step, 100);
