// What each step kind writes to the cluster, one line each as in STEPS: the kinds that write say
// what they would send; the gates (pause, approval, webhook) write nothing. A gate has the next
// writing step planned from this, and that step, run under the plan, is held to it.
import type { STEP_KINDS } from '../deployment-progress.ts';
import { deployWrites } from './deploy-step.ts';
import { removeOldWrites } from './remove-old-step.ts';
import { weightWrites } from './set-weight-step.ts';
import type { WritesOf } from './step-kind.ts';
import { switchTrafficWrites } from './switch-traffic-step.ts';

export const STEP_WRITES: Readonly<Record<(typeof STEP_KINDS)[number], WritesOf | undefined>> = {
  pause: undefined,
  approval: undefined,
  webhook: undefined,
  analysis: undefined,
  deploy: deployWrites,
  setWeight: weightWrites,
  promote: weightWrites,
  switchTraffic: switchTrafficWrites,
  removeOld: removeOldWrites,
  exposeServices: undefined,
};
