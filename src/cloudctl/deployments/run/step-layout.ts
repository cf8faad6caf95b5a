// A target's steps, laid out when the deployment is submitted so its progress shows every step to
// come: the beforeDeployment constraints, the strategy (deploy, then the canary's steps and the
// promotion, or blue/green's parallel checks, the switch and the shutdown), the afterDeployment
// constraints. Each step keeps where it came from in the file, so a run finds its definition again.
import type { AnalysisStep } from '../deployment-file/analysis-step.ts';
import type { DeploymentFile } from '../deployment-file/deployment-file-schema.ts';
import type { ExposeServicesStep } from '../deployment-file/expose-services-step.ts';
import type { PauseStep } from '../deployment-file/pause-step.ts';
import type { RunWebhookStep } from '../deployment-file/run-webhook-step.ts';
import { blueGreenServices } from '../deployment-file/traffic-management.ts';
import type { StepState, TargetState } from './deployment-progress.ts';

/** The lists of the file a step can come from. */
const STEP_SOURCES = [
  'beforeDeployment',
  'afterDeployment',
  'canary',
  'redirectTrafficAfter',
  'shutDownOldVersionAfter',
] as const;
export type StepSource = (typeof STEP_SOURCES)[number];

/** A gate step's definition in the file. */
export type GateDefinition =
  | { pause: PauseStep }
  | { runWebhook: RunWebhookStep }
  | { analysis: AnalysisStep }
  | { exposeServices: ExposeServicesStep };

function gateStep(
  target: string,
  from: StepSource,
  index: number,
  definition: GateDefinition,
  phase: StepState['phase'],
  group?: string,
): StepState {
  const base = {
    key: `${target}/${from}[${index}]`,
    phase,
    source: index,
    status: 'PENDING' as const,
    operationIds: [],
  };
  const grouped = group === undefined ? {} : { group };
  if ('runWebhook' in definition)
    return { ...base, ...grouped, kind: 'webhook', label: `webhook ${definition.runWebhook.name}` };
  if ('analysis' in definition) {
    const a = definition.analysis;
    const runs = a.numberOfJudgmentRuns === 1 ? 'once' : `${a.numberOfJudgmentRuns} times`;
    return {
      ...base,
      ...grouped,
      kind: 'analysis',
      label: `analysis of ${a.queries.join(', ')}, ${runs} every ${a.interval} ${a.units}`,
    };
  }
  if ('exposeServices' in definition) {
    const { services, ttl } = definition.exposeServices;
    const label = `preview URLs of ${services.join(', ')} for ${ttl.duration} ${ttl.unit}`;
    return { ...base, ...grouped, kind: 'exposeServices', label };
  }
  const pause = definition.pause;
  if ('untilApproved' in pause)
    return {
      ...base,
      ...grouped,
      kind: 'approval',
      label:
        pause.requiresRoles.length === 0
          ? 'pause until approved'
          : `pause until approved by ${pause.requiresRoles.join(' or ')}`,
      ...(pause.requiresRoles.length === 0 ? {} : { requiresRoles: pause.requiresRoles }),
    };
  return { ...base, ...grouped, kind: 'pause', label: `pause ${pause.duration} ${pause.unit}` };
}

function rolloutStep(target: string, kind: StepState['kind'], label: string, weight?: number): StepState {
  return {
    key: weight === undefined ? `${target}/${kind}` : `${target}/${kind}[${weight}]`,
    phase: 'strategy',
    kind,
    label,
    status: 'PENDING',
    operationIds: [],
  };
}

export function layOutSteps(file: DeploymentFile, targetName: string): StepState[] {
  const target = file.targets[targetName];
  const strategy = target === undefined ? undefined : file.strategies[target.strategy];
  if (target === undefined || strategy === undefined) return [];
  const steps: StepState[] = [];
  for (const [i, s] of target.constraints.beforeDeployment.entries())
    steps.push(gateStep(targetName, 'beforeDeployment', i, s, 'beforeDeployment'));
  steps.push(rolloutStep(targetName, 'deploy', 'deploy the new version'));
  if ('canary' in strategy) {
    strategy.canary.steps.forEach((s, i) => {
      if ('setWeight' in s) {
        steps.push({
          ...rolloutStep(targetName, 'setWeight', `setWeight ${s.setWeight.weight}%`),
          key: `${targetName}/canary[${i}]`,
          source: i,
        });
      } else {
        const step = gateStep(targetName, 'canary', i, s, 'strategy');
        steps.push(step);
      }
    });
    steps.push(rolloutStep(targetName, 'promote', 'new version at 100%'));
  } else {
    const blueGreen = strategy.blueGreen;
    for (const [i, s] of blueGreen.redirectTrafficAfter.entries())
      steps.push(gateStep(targetName, 'redirectTrafficAfter', i, s, 'strategy', 'redirectTrafficAfter'));
    steps.push(
      rolloutStep(
        targetName,
        'switchTraffic',
        `${blueGreenServices(file, targetName)?.activeService ?? 'the active Service'} selects the new version`,
      ),
    );
    for (const [i, s] of blueGreen.shutDownOldVersionAfter.entries())
      steps.push(
        gateStep(targetName, 'shutDownOldVersionAfter', i, s, 'strategy', 'shutDownOldVersionAfter'),
      );
    steps.push(rolloutStep(targetName, 'removeOld', 'old version scaled to 0'));
  }
  for (const [i, s] of target.constraints.afterDeployment.entries())
    steps.push(gateStep(targetName, 'afterDeployment', i, s, 'afterDeployment'));
  return steps;
}

/** Every target of the file, PENDING, its steps laid out. */
export function layOutTargets(file: DeploymentFile): TargetState[] {
  return Object.entries(file.targets).map(([name, target]) => {
    const strategy = file.strategies[target.strategy];
    return {
      name,
      account: target.account,
      ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
      strategy: strategy !== undefined && 'blueGreen' in strategy ? 'blueGreen' : 'canary',
      status: 'PENDING',
      rollbackOperationIds: [],
      steps: layOutSteps(file, name),
    };
  });
}

/** Which list of the file a laid-out step came from (read back from its key). */
export function stepSource(step: StepState): StepSource | undefined {
  const match = /\/(\w+)\[\d+\]$/.exec(step.key);
  return STEP_SOURCES.find((source) => source === match?.[1]);
}

/** The definition of a gate step (pause, approval, webhook) in the file. */
export function gateDefinition(
  file: DeploymentFile,
  targetName: string,
  step: StepState,
): GateDefinition | undefined {
  const target = file.targets[targetName];
  const strategy = target === undefined ? undefined : file.strategies[target.strategy];
  const index = step.source;
  if (target === undefined || strategy === undefined || index === undefined) return undefined;
  switch (stepSource(step)) {
    case 'beforeDeployment':
      return target.constraints.beforeDeployment[index];
    case 'afterDeployment':
      return target.constraints.afterDeployment[index];
    case 'canary': {
      const s = 'canary' in strategy ? strategy.canary.steps[index] : undefined;
      return s === undefined || 'setWeight' in s ? undefined : s;
    }
    case 'redirectTrafficAfter':
      return 'blueGreen' in strategy ? strategy.blueGreen.redirectTrafficAfter[index] : undefined;
    case 'shutDownOldVersionAfter':
      return 'blueGreen' in strategy ? strategy.blueGreen.shutDownOldVersionAfter[index] : undefined;
    default:
      return undefined;
  }
}

/** The weight of a setWeight step. */
export function stepWeight(file: DeploymentFile, targetName: string, step: StepState): number | undefined {
  const target = file.targets[targetName];
  const strategy = target === undefined ? undefined : file.strategies[target.strategy];
  if (strategy === undefined || !('canary' in strategy) || step.source === undefined) return undefined;
  const s = strategy.canary.steps[step.source];
  return s !== undefined && 'setWeight' in s ? s.setWeight.weight : undefined;
}
