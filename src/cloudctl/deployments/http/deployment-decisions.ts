// Who may see a deployment, and the decisions people take on one: approve or reject the manual pause
// it waits at, roll it back. The HTTP routes and the status page both call these, so a decision
// taken on the page is checked exactly as one sent to the API: READ on every account of the
// deployment to see it, WRITE on the target's account (and one of the step's `requiresRoles`, if
// any) to decide a pause, WRITE on every account to roll back.
import type { AccountGuard } from '../../accounts/index.ts';
import type { Principal } from '../../auth/index.ts';
import { HttpError } from '../../http/index.ts';
import {
  type DeploymentRunner,
  type DeploymentStore,
  isRollbackable,
  RollbackRefused,
  type StepState,
  type StoredDeployment,
  type TargetState,
} from '../run/index.ts';

export interface DeploymentDecisionDeps {
  runner: Pick<DeploymentRunner, 'wake' | 'requestRollback'>;
  store: Pick<DeploymentStore, 'get' | 'list' | 'decide'>;
  guard: AccountGuard;
  now: () => Date;
}

/** A manual pause waiting for a verdict now. */
export interface WaitingApproval {
  target: TargetState;
  step: StepState;
}

/** The deployment, when the user may read every account it deploys to; 404 or 403 otherwise. */
export async function readableDeployment(
  deps: Pick<DeploymentDecisionDeps, 'store' | 'guard'>,
  user: Principal,
  id: string,
): Promise<StoredDeployment> {
  const deployment = await deps.store.get(id);
  if (deployment === undefined) throw new HttpError('NOT_FOUND', `no deployment ${id}`);
  for (const account of deployment.accounts) await deps.guard.require(user, account, 'READ');
  return deployment;
}

/** The newest `limit` deployments, less those with an account the user may not read. */
export async function readableDeployments(
  deps: Pick<DeploymentDecisionDeps, 'store' | 'guard'>,
  user: Principal,
  limit: number,
): Promise<StoredDeployment[]> {
  const visible = new Set((await deps.guard.visible(user, 'READ')).map((a) => a.name));
  const all = await deps.store.list(limit);
  return all.filter((d) => d.accounts.every((a) => visible.has(a)));
}

/** The approval steps waiting now, of the named target or of all. */
export function waitingApprovals(deployment: StoredDeployment, target?: string): WaitingApproval[] {
  return deployment.progress.targets
    .filter((t) => target === undefined || t.name === target)
    .flatMap((t) =>
      t.steps
        .filter((s) => s.kind === 'approval' && s.status === 'RUNNING' && s.gateId !== undefined)
        .map((s) => ({ target: t, step: s })),
    );
}

/** Throws FORBIDDEN (or NOT_FOUND for an account gone) unless the user may decide the pause. */
export async function requireMayDecide(
  guard: AccountGuard,
  user: Principal,
  { target, step }: WaitingApproval,
  word = 'decide',
): Promise<void> {
  await guard.require(user, target.account, 'WRITE');
  const roles = step.requiresRoles ?? [];
  if (roles.length > 0 && !user.admin && !user.roles.some((r) => roles.includes(r)))
    throw new HttpError(
      'FORBIDDEN',
      `${user.name} may not ${word} this pause: it needs one of the roles ${roles.join(', ')}`,
    );
}

/** Whether requireMayDecide lets the user through: what the page asks before it offers the buttons. */
export async function mayDecide(guard: AccountGuard, user: Principal, approval: WaitingApproval) {
  return refusedOrTrue(() => requireMayDecide(guard, user, approval));
}

/**
 * Records the verdict on the pause the deployment waits at (of `target` when several wait) and wakes
 * the run; answers the deployment as stored after the decision.
 */
export async function decideApproval(
  deps: DeploymentDecisionDeps,
  user: Principal,
  id: string,
  decision: { verdict: boolean; target?: string | undefined; message?: string | undefined },
): Promise<StoredDeployment> {
  const { verdict, target: targetName } = decision;
  const word = verdict ? 'approve' : 'reject';
  const deployment = await readableDeployment(deps, user, id);
  const waiting = waitingApprovals(deployment, targetName);
  if (waiting.length === 0)
    throw new HttpError(
      'CONFLICT',
      targetName === undefined
        ? `deployment ${id} waits for no approval`
        : `target ${targetName} of deployment ${id} waits for no approval`,
    );
  if (waiting.length > 1)
    throw new HttpError(
      'REQUEST_INVALID',
      `target: several targets wait for approval (${waiting.map((w) => w.target.name).join(', ')}); name one`,
    );
  const [first] = waiting;
  if (first === undefined) throw new HttpError('CONFLICT', `deployment ${id} waits for no approval`);
  await requireMayDecide(deps.guard, user, first, word);
  const plan = first.step.plan;
  // Approving applies the plan shown: one past its expiry is not what the page shows any more. The
  // run makes a new one at once (approval-step.ts); the approver looks again.
  if (verdict && plan !== undefined && new Date(plan.expiresAt).getTime() <= deps.now().getTime())
    throw new HttpError(
      'CONFLICT',
      `plan ${plan.id} of ${first.step.label} expired at ${plan.expiresAt}; cloudctl is making a new one: look at it (GET /deployments/${id}) and approve again`,
    );
  const gateId = first.step.gateId ?? '';
  const decided = await deps.store.decide(
    gateId,
    { verdict, message: decision.message ?? null, by: user.name },
    deps.now(),
  );
  if (decided.outcome === 'conflict')
    throw new HttpError(
      'CONFLICT',
      `this pause was already ${decided.gate.verdict ? 'approved' : 'rejected'}`,
    );
  deps.runner.wake(gateId);
  return (await deps.store.get(id)) ?? deployment;
}

/**
 * Whether a rollback would be taken: the deployment has ended and a target of it deployed something
 * (the runner's own test, which refuses anything else with RollbackRefused).
 */
export function mayRollBackNow(deployment: StoredDeployment): boolean {
  return deployment.status !== 'RUNNING' && deployment.progress.targets.some(isRollbackable);
}

/** Throws FORBIDDEN unless the user may change every account of the deployment. */
export async function requireMayRollBack(
  guard: AccountGuard,
  user: Principal,
  deployment: StoredDeployment,
): Promise<void> {
  for (const account of deployment.accounts) await guard.require(user, account, 'WRITE');
}

export async function mayRollBack(guard: AccountGuard, user: Principal, deployment: StoredDeployment) {
  return refusedOrTrue(() => requireMayRollBack(guard, user, deployment));
}

/** Starts the rollback of a finished deployment; answers the deployment as it starts rolling back. */
export async function rollBackDeployment(
  deps: DeploymentDecisionDeps,
  user: Principal,
  id: string,
): Promise<StoredDeployment> {
  const deployment = await readableDeployment(deps, user, id);
  await requireMayRollBack(deps.guard, user, deployment);
  try {
    const started = await deps.runner.requestRollback(id, user.name);
    if (started === undefined) throw new HttpError('NOT_FOUND', `no deployment ${id}`);
    return started;
  } catch (error) {
    if (error instanceof RollbackRefused) throw new HttpError('CONFLICT', error.message);
    throw error;
  }
}

/** true when `check` passes, false when it refuses (403, or 404 for an account that is gone). */
async function refusedOrTrue(check: () => Promise<void>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (error) {
    if (error instanceof HttpError && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND'))
      return false;
    throw error;
  }
}
