// Plans: what operations would change, found by the agents' dry runs without writing anything, kept
// until applied (once, guarded by the versions the plan saw) or expired. Other features plan through
// the Planner and apply plans of their own source through an applier they register.
export { type CheckedPlans, checkedPlans } from './plan-access.ts';
export { planDiff } from './plan-diff.ts';
export { stepExpectations } from './plan-preconditions.ts';
export {
  type PlanChange,
  type PlannedObjectRecord,
  type PlannedOperation,
  type PlanRecord,
  planChangeSchema,
  plannedObjectRecordSchema,
  plannedOperationSchema,
  planRecordSchema,
} from './plan-record.ts';
export { PLAN_SOURCES, type PlanSource, PlanStore, type StoredPlan } from './plan-store.ts';
export { type PlanTables, plansMigration } from './plan-tables.ts';
export {
  type ApplicablePlan,
  type AppliedWork,
  type PlanApplier,
  Planner,
  type PlanRequest,
  type PlanStep,
} from './planner.ts';
export { type PlansFeature, type PlansFeatureDeps, plansFeature } from './plans-feature.ts';
