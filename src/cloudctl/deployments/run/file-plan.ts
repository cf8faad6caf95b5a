// The plan of a deployment file before anything starts (POST /deployments/plans): each target's first
// deploy, its manifests exactly as that step would apply them. A versioned name carries the deployment
// id, so the plan is made for an id chosen now and kept in the plan; applying the plan starts the
// deployment under that id with each deploy held to the plan (deployment-plans.ts, the applier).
// What runs before a deploy (a gate plans it again) or after it is said, not planned.
import type { LoadedDeployment } from '../deployment-file/load-deployment-file.ts';
import type { DeploymentPlan, DeploymentPlanner, PlannedCall } from './deployment-planner.ts';
import type { TargetState } from './deployment-progress.ts';
import { layOutTargets } from './step-layout.ts';
import { callsDigest, deployWrites, type StepContext } from './steps/index.ts';

export interface FilePlanRequest {
  loaded: LoadedDeployment;
  text: string;
  fileName: string;
  user: string;
  deploymentId: string;
  planner: DeploymentPlanner;
  /** A run context for reading what the target's deploy depends on (its versions live now). */
  contextOf(target: TargetState): StepContext;
}

/** Why a target's plan may differ from what its deploy will do, in words. */
function caveats(target: TargetState, deployIndex: number, dependsOn: readonly string[]): string[] {
  const gates = target.steps
    .slice(0, deployIndex)
    .filter((s) => s.kind === 'approval' || s.kind === 'webhook');
  const later = target.steps.slice(deployIndex + 1).filter((s) => s.kind !== 'pause');
  return [
    ...(dependsOn.length === 0
      ? []
      : [`${target.name} deploys once ${dependsOn.join(', ')} succeeded: objects may move before then`]),
    ...(gates.length === 0
      ? []
      : [`${target.name}: ${gates.map((g) => g.label).join(', ')} plans the deploy again before it runs`]),
    ...(later.length === 0
      ? []
      : [
          `${target.name}: the steps after the deploy (${later.map((s) => s.label).join(', ')}) are not planned`,
        ]),
  ];
}

export async function planFirstDeploys(request: FilePlanRequest): Promise<DeploymentPlan> {
  const file = request.loaded.deployment;
  const calls: PlannedCall[] = [];
  const targets: Array<{ name: string; digest: string }> = [];
  const unknown: string[] = [];
  for (const target of layOutTargets(file)) {
    const index = target.steps.findIndex((s) => s.kind === 'deploy');
    const deploy = target.steps[index];
    if (deploy === undefined) continue;
    const writes = await deployWrites(deploy, request.contextOf(target));
    // A deploy is one call: the plan's call i is the deploy of targets[i].
    for (const call of writes.calls)
      calls.push({
        account: target.account,
        name: 'deploy',
        description: `${target.name}: ${deploy.label}`,
        call,
      });
    targets.push({ name: target.name, digest: callsDigest(writes.calls) });
    unknown.push(
      ...writes.unknown,
      ...caveats(target, index, file.targets[target.name]?.constraints.dependsOn ?? []),
    );
  }
  return request.planner.plan({
    user: request.user,
    calls,
    unknown,
    subject: {
      kind: 'file',
      deploymentId: request.deploymentId,
      fileName: request.fileName,
      text: request.text,
      targets,
    },
  });
}
