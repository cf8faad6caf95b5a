// switchTraffic: blue/green's active Service selects the new version.
import { blueGreenServices } from '../../deployment-file/traffic-management.ts';
import type { WriteCall } from '../deployment-planner.ts';
import { type StepContext, StepFailure, selectCall } from './step-context.ts';
import type { StepKind, WritesOf } from './step-kind.ts';

function switchCall(run: StepContext): { call: WriteCall; message: string } {
  const services = blueGreenServices(run.deps.file, run.target.name);
  if (services === undefined) throw new StepFailure('switchTraffic belongs to blue/green', false);
  const workload = run.target.workloads?.[0];
  if (workload === undefined) throw new StepFailure('no workload to switch to', false);
  const service = services.activeService;
  return {
    call: selectCall(service, workload.namespace, workload.version),
    message: `${service} selects ${workload.replicaSet}`,
  };
}

export const switchTrafficStep: StepKind = async (step, run) => {
  const { call, message } = switchCall(run);
  await run.write(step, 0, call);
  return message;
};

export const switchTrafficWrites: WritesOf = async (_step, run) => ({
  calls: [switchCall(run).call],
  unknown: [],
});
