// Tasks: what POST /ops starts. Operations named as in the API we mirror are converted to agent
// operations, run in order, and followed through GET /task/{id}, across cloudctl restarts.
export { CONVERTERS, type KindResolver } from './converters/index.ts';
export type { DeployRecords } from './deploy-records.ts';
export {
  type OperationStepsDeps,
  operationsBodySchema,
  operationsToSteps,
  type StepsOf,
} from './operation-steps.ts';
export { type OpsRouteDeps, opsRoutes } from './ops-routes.ts';
export { taskReader } from './task-access.ts';
export { type TaskRouteDeps, taskRoutes } from './task-routes.ts';
export { TaskRunner } from './task-runner.ts';
export { type StoredTask, type TaskStep, TaskStore, type TaskSummary, taskStepSchema } from './task-store.ts';
export { type TaskTables, taskOwnerMigration, tasksMigration } from './task-tables.ts';
export { type TaskView, taskSchema, taskView } from './task-view.ts';
export { type TasksFeature, type TasksFeatureDeps, tasksFeature } from './tasks-feature.ts';
