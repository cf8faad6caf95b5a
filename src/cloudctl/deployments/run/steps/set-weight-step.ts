// setWeight (and promote, at 100): the new version scaled to its share of the desired replicas and
// waited ready, the previous version scaled down by as much, older ones to 0. A version that does
// not get ready in time rolls the target back. Its writes are known before it runs (the workloads
// are stored at deploy; a mesh's objects are read when planned), so a gate before it can plan them
// exactly, and the step sends only what was planned.
// With a mesh (trafficManagement smi or istio) the weight is the mesh's: the new version still runs
// its share of the replicas (so each pod carries about the load it would at full size), but the
// previous version stays at its full size until the promotion, so the stable side can take all the
// traffic back at once; the traffic writes follow the new pods getting ready. At promote the stable
// side is pointed at the new version (running in full) before the previous one is scaled to 0.
import { meshManaged, trafficOf } from '../../deployment-file/traffic-management.ts';
import type { WriteCall } from '../deployment-planner.ts';
import type { Workload } from '../deployment-progress.ts';
import { stepWeight } from '../step-layout.ts';
import { TrafficError, trafficTargetOf, trafficWrites } from '../traffic/index.ts';
import { type StepContext, StepFailure, scaleCall } from './step-context.ts';
import type { StepKind, StepWrites, WritesOf } from './step-kind.ts';

/** Per workload: its new version's size, the scale to it, and the scales of the versions before. */
interface WeightMove {
  workload: Workload;
  replicas: number;
  grow: WriteCall;
  shrink: WriteCall[];
}

function weightMoves(run: StepContext, weight: number, shrinkLive: boolean): WeightMove[] {
  return (run.target.workloads ?? []).map((w) => {
    const replicas = Math.ceil((w.desired * weight) / 100);
    // The previous version gives up what the new one took (by replica ratio); older ones go.
    const [live, ...older] = w.previous;
    return {
      workload: w,
      replicas,
      grow: scaleCall(w.namespace, w.replicaSet, replicas),
      shrink: [
        ...(live === undefined || !shrinkLive
          ? []
          : [scaleCall(w.namespace, live.name, Math.max(0, w.desired - replicas))]),
        ...older.map((old) => scaleCall(w.namespace, old.name, 0)),
      ],
    };
  });
}

function weightOf(run: StepContext, step: Parameters<StepKind>[0]): number {
  return step.kind === 'promote' ? 100 : (stepWeight(run.deps.file, run.target.name, step) ?? 0);
}

/** One write of the step; after a `ready` one the step waits for that many new pods. */
interface WeightWrite {
  call: WriteCall;
  ready?: { workload: Workload; replicas: number };
}

async function weightPlan(
  run: StepContext,
  step: Parameters<StepKind>[0],
): Promise<{ writes: WeightWrite[]; moves: WeightMove[]; said: string[] }> {
  const traffic = trafficOf(run.deps.file, run.target.name);
  const weight = weightOf(run, step);
  const promote = step.kind === 'promote';
  if (!meshManaged(traffic)) {
    const moves = weightMoves(run, weight, true);
    const writes = moves.flatMap((m) => [
      { call: m.grow, ready: { workload: m.workload, replicas: m.replicas } },
      ...m.shrink.map((call) => ({ call })),
    ]);
    return { writes, moves, said: [] };
  }
  const moves = weightMoves(run, weight, promote);
  let routed: Awaited<ReturnType<typeof trafficWrites>>;
  try {
    routed = await trafficWrites(
      trafficTargetOf(run),
      traffic,
      promote ? { canaryWeight: 0, stable: 'new' } : { canaryWeight: weight, stable: 'previous' },
    );
  } catch (error) {
    if (error instanceof TrafficError) throw new StepFailure(error.message, run.rollsBack(step));
    throw error;
  }
  const writes = [
    ...moves.map((m) => ({ call: m.grow, ready: { workload: m.workload, replicas: m.replicas } })),
    ...routed.calls.map((call) => ({ call })),
    ...moves.flatMap((m) => m.shrink.map((call) => ({ call }))),
  ];
  return { writes, moves, said: routed.said };
}

const setWeight: StepKind = async (step, run) => {
  const deadline = await run.readyDeadline(step);
  const { writes, moves, said } = await weightPlan(run, step);
  for (const [index, { call, ready }] of writes.entries()) {
    await run.write(step, index, call);
    if (ready !== undefined)
      await run.waitReady(ready.workload, ready.workload.replicaSet, ready.replicas, deadline, true);
  }
  return [
    ...moves.map((m) => `${m.workload.replicaSet} at ${m.replicas} of ${m.workload.desired}`),
    ...said,
  ].join(', ');
};

export const setWeightStep: StepKind = setWeight;
export const promoteStep: StepKind = setWeight;

/** The writes in the order the step sends them; after each scale up it waits for the new pods to get ready. */
export const weightWrites: WritesOf = async (step, run): Promise<StepWrites> => {
  const { writes, moves } = await weightPlan(run, step);
  return {
    calls: writes.map((w) => w.call),
    unknown: moves.map(
      (m) =>
        `whether ${m.workload.replicaSet} gets ${m.replicas} pods ready before the older versions are scaled down (otherwise the target rolls back)`,
    ),
  };
};
