// Planning: what a write operation would do, found without writing. The handlers' planners (one per
// plannable type, beside each handler) read objects live and dry-run their writes with these parts;
// the `plan` handler assembles their drafts into the contract's answer.
export {
  dryRun,
  dryRunRequest,
  notDryRun,
  readLive,
  refusal,
  unknownKindDraft,
  writeAction,
} from './dry-run.ts';
export type {
  AccessRequest,
  DryRunVerdict,
  ObjectDraft,
  PlanDraft,
  Planner,
  PlannerRegistry,
  PlanResult,
} from './object-draft.ts';
export { assemblePlan } from './plan-assembly.ts';
