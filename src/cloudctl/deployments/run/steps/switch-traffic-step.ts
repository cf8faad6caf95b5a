// switchTraffic: blue/green's active Service selects the new version.
import { StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

export const switchTrafficStep: StepKind = async (step, run) => {
  const strategy = run.strategy();
  if (!('blueGreen' in strategy)) throw new StepFailure('switchTraffic belongs to blue/green', false);
  const workload = run.target.workloads?.[0];
  if (workload === undefined) throw new StepFailure('no workload to switch to', false);
  await run.selectService(
    step.operationIds,
    0,
    strategy.blueGreen.activeService,
    workload.namespace,
    workload.version,
  );
  return `${strategy.blueGreen.activeService} selects ${workload.replicaSet}`;
};
