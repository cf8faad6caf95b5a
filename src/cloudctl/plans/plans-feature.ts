// The plans feature's factory: the Planner (which plans task steps through the agents, keeps plans
// and applies each once, guarded) and its routes. It holds nothing open: a plan lives in the database,
// so every replica reads it and a restart keeps it.
import type { Logger } from 'pino';
import type { AccountGuard } from '../accounts/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { AgentOperations } from '../operations/index.ts';
import type { StepsOf, TaskRunner } from '../tasks/index.ts';
import { type CheckedPlans, checkedPlans } from './plan-access.ts';
import { planRoutes } from './plan-routes.ts';
import type { PlanStore } from './plan-store.ts';
import { Planner } from './planner.ts';

export interface PlansFeatureDeps {
  stores: { plans: PlanStore };
  /** Who carries a plan's `plan` and `versions` questions to the agents. */
  dispatcher: AgentOperations;
  /**
   * The tasks feature: its runner runs an applied plan of operations, and its conversion of a
   * request's operations (the same as POST /ops) makes the steps a plan dry-runs.
   */
  tasks: { runner: Pick<TaskRunner, 'submit'>; stepsOf: StepsOf };
  guard: AccountGuard;
  logger: Logger;
  now: () => Date;
  /** `plans.*` of cloudctl's config. */
  settings: { expireAfterSeconds: number };
}

export interface PlansFeature extends Feature {
  /** Plans steps and applies plans; other features (deployments) plan through it. */
  planner: Planner;
  /** Reads and applies as a user, access checked as the routes check it (the status page's). */
  checked: CheckedPlans;
  routes: Route[];
}

export function plansFeature(deps: PlansFeatureDeps): PlansFeature {
  const planner = new Planner({
    store: deps.stores.plans,
    agents: deps.dispatcher,
    runner: deps.tasks.runner,
    logger: deps.logger.child({ feature: 'plans' }),
    now: deps.now,
    expireAfterMs: deps.settings.expireAfterSeconds * 1000,
  });
  const checked = checkedPlans(planner, deps.guard);
  return {
    name: 'plans',
    phase: 'services',
    planner,
    checked,
    routes: planRoutes({ planner, plans: checked, stepsOf: deps.tasks.stepsOf }),
  };
}
