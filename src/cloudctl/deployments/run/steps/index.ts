// The step kinds of a target's run, one file each, registered here with one line each: a new kind
// is its file and its line (and its name in STEP_KINDS, which this registry must then cover).
import type { STEP_KINDS } from '../deployment-progress.ts';
import { analysisStep } from './analysis-step.ts';
import { approvalStep } from './approval-step.ts';
import { deployStep } from './deploy-step.ts';
import { exposeServicesStep } from './expose-services-step.ts';
import { pauseStep } from './pause-step.ts';
import { removeOldStep } from './remove-old-step.ts';
import { promoteStep, setWeightStep } from './set-weight-step.ts';
import type { StepKind } from './step-kind.ts';
import { switchTrafficStep } from './switch-traffic-step.ts';
import { webhookStep } from './webhook-step.ts';

export { deployWrites } from './deploy-step.ts';
export { callsDigest, checkPlanned } from './gate-plan.ts';
export { StepContext, StepFailure, scaleCall, selectCall, type TargetRunDeps } from './step-context.ts';
export type { StepKind } from './step-kind.ts';
export { callbackGateId } from './webhook-step.ts';

export const STEPS: Readonly<Record<(typeof STEP_KINDS)[number], StepKind>> = {
  pause: pauseStep,
  approval: approvalStep,
  webhook: webhookStep,
  analysis: analysisStep,
  deploy: deployStep,
  setWeight: setWeightStep,
  promote: promoteStep,
  switchTraffic: switchTrafficStep,
  removeOld: removeOldStep,
  exposeServices: exposeServicesStep,
};
