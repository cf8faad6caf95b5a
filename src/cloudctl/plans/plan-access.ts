// Who may read and apply a plan, written once for the API and the status page: reading needs READ on
// every account the plan touches, applying WRITE on every one (404 for no plan, 403 otherwise).
import type { AccountGuard } from '../accounts/index.ts';
import type { Access, Principal } from '../auth/index.ts';
import { HttpError } from '../http/index.ts';
import type { PlanRecord } from './plan-record.ts';
import type { AppliedWork, Planner } from './planner.ts';

export interface CheckedPlans {
  /** The plan as GET /plans/{id} answers the user. */
  read(user: Principal, id: string): Promise<PlanRecord>;
  /** POST /plans/{id}/apply as the user: what it started. */
  apply(user: Principal, id: string): Promise<AppliedWork>;
}

export function checkedPlans(planner: Planner, guard: AccountGuard): CheckedPlans {
  const planFor = async (user: Principal, id: string, access: Access): Promise<PlanRecord> => {
    const plan = await planner.get(id);
    if (plan === undefined) throw new HttpError('NOT_FOUND', `no plan ${id}`);
    for (const account of plan.accounts) await guard.require(user, account, access);
    return plan;
  };
  return {
    read: (user, id) => planFor(user, id, 'READ'),
    apply: async (user, id) => {
      await planFor(user, id, 'WRITE');
      return planner.apply(id, user.name);
    },
  };
}
