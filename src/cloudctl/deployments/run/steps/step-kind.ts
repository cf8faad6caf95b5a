// A step kind: how one kind of step is carried out, given the step and its target run's context.
// It answers the step's closing message, or throws a StepFailure. A kind that writes to the cluster
// also says what it would write (WritesOf), so a gate before it can have it planned.
import type { WriteCall } from '../deployment-planner.ts';
import type { StepState } from '../deployment-progress.ts';
import type { StepContext } from './step-context.ts';

export type StepKind = (step: StepState, run: StepContext) => Promise<string | undefined>;

/** What a step would write, found without writing: its calls in the order it sends them. */
export interface StepWrites {
  /** The i-th is the step's operation i, so a plan's versions go with the right call. */
  calls: WriteCall[];
  /** What cannot be known before the step runs. */
  unknown: string[];
}

export type WritesOf = (step: StepState, run: StepContext) => Promise<StepWrites>;
