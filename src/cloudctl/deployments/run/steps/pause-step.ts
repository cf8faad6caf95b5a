// pause: a timed wait, its end stored so a restarted cloudctl waits only for what is left.
import { setTimeout as sleep } from 'node:timers/promises';
import { durationMs } from '../../deployment-file/duration.ts';
import { StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

export const pauseStep: StepKind = async (step, run) => {
  const definition = run.definition(step);
  if (!('pause' in definition) || 'untilApproved' in definition.pause)
    throw new StepFailure('not a timed pause', false);
  if (step.until === undefined) {
    step.until = new Date(run.deps.now().getTime() + durationMs(definition.pause)).toISOString();
    await run.deps.save();
  }
  const left = Date.parse(step.until) - run.deps.now().getTime();
  if (left > 0) await sleep(left, undefined, { signal: run.waits });
  return undefined;
};
