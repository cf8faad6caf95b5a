// The states of a deployment's targets and steps, and the moves allowed between them. A move not in
// the table is a bug in the runner, so it throws rather than storing a state nobody can explain.
//
//   target:  PENDING ──► RUNNING ──► SUCCEEDED ──┐ (rollback asked)
//              │            │   └──► FAILED ─────┼──► ROLLING_BACK ──► ROLLED_BACK
//              ▼            └─(webhook failed)───┘          └────────► FAILED (rollback failed)
//           CANCELED (a target it depends on did not succeed)
//
//   step:    PENDING ──► RUNNING ──► SUCCEEDED | FAILED
//              └──► SKIPPED (its target stopped before it, or a first version has nothing to compare)
//
// The deployment's own status follows from its targets (deploymentStatus).
import { CodedError } from '../../../lib/coded-error.ts';

export const TARGET_STATUSES = [
  'PENDING',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'CANCELED',
  'ROLLING_BACK',
  'ROLLED_BACK',
] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

export const STEP_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export const DEPLOYMENT_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'ROLLED_BACK'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

const TARGET_MOVES: Readonly<Record<TargetStatus, readonly TargetStatus[]>> = {
  PENDING: ['RUNNING', 'CANCELED'],
  RUNNING: ['SUCCEEDED', 'FAILED', 'ROLLING_BACK'],
  SUCCEEDED: ['ROLLING_BACK'],
  FAILED: ['ROLLING_BACK'],
  ROLLING_BACK: ['ROLLED_BACK', 'FAILED'],
  CANCELED: [],
  ROLLED_BACK: [],
};

const STEP_MOVES: Readonly<Record<StepStatus, readonly StepStatus[]>> = {
  PENDING: ['RUNNING', 'SKIPPED'],
  RUNNING: ['SUCCEEDED', 'FAILED'],
  SUCCEEDED: [],
  FAILED: [],
  SKIPPED: [],
};

export class IllegalMoveError extends CodedError<'ILLEGAL_MOVE'> {
  constructor(what: string, from: string, to: string) {
    super('ILLEGAL_MOVE', `illegal ${what} move ${from} -> ${to}`);
  }
}

export function checkTargetMove(from: TargetStatus, to: TargetStatus): void {
  if (!TARGET_MOVES[from].includes(to)) throw new IllegalMoveError('target', from, to);
}

export function checkStepMove(from: StepStatus, to: StepStatus): void {
  if (!STEP_MOVES[from].includes(to)) throw new IllegalMoveError('step', from, to);
}

/** Targets still moving: the deployment is running while any is. */
export function isTargetActive(status: TargetStatus): boolean {
  return status === 'PENDING' || status === 'RUNNING' || status === 'ROLLING_BACK';
}

export function deploymentStatus(targets: ReadonlyArray<{ status: TargetStatus }>): DeploymentStatus {
  if (targets.some((t) => isTargetActive(t.status))) return 'RUNNING';
  if (targets.every((t) => t.status === 'SUCCEEDED')) return 'SUCCEEDED';
  const unsuccessful = targets.filter((t) => t.status !== 'SUCCEEDED');
  if (
    unsuccessful.some((t) => t.status === 'ROLLED_BACK') &&
    unsuccessful.every((t) => t.status === 'ROLLED_BACK' || t.status === 'CANCELED')
  )
    return 'ROLLED_BACK';
  return 'FAILED';
}

/** A target a rollback can take back: it ended and deployed something (its workloads are known). */
export function isRollbackable(target: { status: TargetStatus; workloads?: unknown }): boolean {
  return (target.status === 'SUCCEEDED' || target.status === 'FAILED') && target.workloads !== undefined;
}
