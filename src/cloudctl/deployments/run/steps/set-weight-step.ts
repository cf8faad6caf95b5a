// setWeight (and promote, at 100): the new version scaled to its share of the desired replicas and
// waited ready, the previous version scaled down by as much, older ones to 0. A version that does
// not get ready in time rolls the target back. Its writes are known before it runs (the workloads
// are stored at deploy), so a gate before it can plan them exactly.

import type { WriteCall } from '../deployment-planner.ts';
import type { Workload } from '../deployment-progress.ts';
import { stepWeight } from '../step-layout.ts';
import { type StepContext, scaleCall } from './step-context.ts';
import type { StepKind, StepWrites, WritesOf } from './step-kind.ts';

/** Per workload: its new version's size, the scale to it, and the scales of the versions before. */
interface WeightMove {
  workload: Workload;
  replicas: number;
  grow: WriteCall;
  shrink: WriteCall[];
}

function weightMoves(run: StepContext, weight: number): WeightMove[] {
  return (run.target.workloads ?? []).map((w) => {
    const replicas = Math.ceil((w.desired * weight) / 100);
    // The previous version gives up what the new one took (by replica ratio); older ones go.
    const [live, ...older] = w.previous;
    return {
      workload: w,
      replicas,
      grow: scaleCall(w.namespace, w.replicaSet, replicas),
      shrink: [
        ...(live === undefined ? [] : [scaleCall(w.namespace, live.name, Math.max(0, w.desired - replicas))]),
        ...older.map((old) => scaleCall(w.namespace, old.name, 0)),
      ],
    };
  });
}

function weightOf(run: StepContext, step: Parameters<StepKind>[0]): number {
  return step.kind === 'promote' ? 100 : (stepWeight(run.deps.file, run.target.name, step) ?? 0);
}

const setWeight: StepKind = async (step, run) => {
  const deadline = await run.readyDeadline(step);
  let index = 0;
  const done: string[] = [];
  for (const move of weightMoves(run, weightOf(run, step))) {
    const w = move.workload;
    await run.write(step, index++, move.grow);
    await run.waitReady(w, w.replicaSet, move.replicas, deadline, true);
    for (const call of move.shrink) await run.write(step, index++, call);
    done.push(`${w.replicaSet} at ${move.replicas} of ${w.desired}`);
  }
  return done.join(', ');
};

export const setWeightStep: StepKind = setWeight;
export const promoteStep: StepKind = setWeight;

/** The scales in the order the step sends them; between them it waits for the new pods to get ready. */
export const weightWrites: WritesOf = async (step, run): Promise<StepWrites> => {
  const moves = weightMoves(run, weightOf(run, step));
  return {
    calls: moves.flatMap((m) => [m.grow, ...m.shrink]),
    unknown: moves.map(
      (m) =>
        `whether ${m.workload.replicaSet} gets ${m.replicas} pods ready before the older versions are scaled down (otherwise the target rolls back)`,
    ),
  };
};
