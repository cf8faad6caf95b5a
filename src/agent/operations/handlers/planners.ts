// The planner of every plannable operation type, beside its handler: the same writes as dry runs.
// A type the contract makes plannable (PLANNABLE_TYPES) without a planner here does not compile.
import type { PlannerRegistry } from '../plan/index.ts';
import { deletePlanner } from './delete.ts';
import { deleteObjectsPlanner } from './delete-objects.ts';
import { deleteSelectedPlanner } from './delete-selected.ts';
import { deployPlanner } from './deploy-plan.ts';
import { patchPlanner } from './patch.ts';
import { rolloutPlanner } from './rollout.ts';
import { runJobPlanner } from './run-job.ts';
import { scalePlanner } from './scale.ts';

export const PLANNERS: PlannerRegistry = {
  deploy: deployPlanner,
  delete: deletePlanner,
  deleteSelected: deleteSelectedPlanner,
  deleteObjects: deleteObjectsPlanner,
  scale: scalePlanner,
  patch: patchPlanner,
  rollout: rolloutPlanner,
  runJob: runJobPlanner,
};
