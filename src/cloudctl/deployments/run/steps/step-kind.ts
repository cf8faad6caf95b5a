// A step kind: how one kind of step is carried out, given the step and its target run's context.
// It answers the step's closing message, or throws a StepFailure.
import type { StepState } from '../deployment-progress.ts';
import type { StepContext } from './step-context.ts';

export type StepKind = (step: StepState, run: StepContext) => Promise<string | undefined>;
