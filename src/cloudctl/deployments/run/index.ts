// The deployment runner: stored deployments, their steps laid out and carried on across restarts.

export { type MetricProviders, metricProviders } from './analysis/metric-providers.ts';
export {
  type DeploymentPlan,
  type DeploymentPlanner,
  type PlannedCall,
  type PlanRequest,
  type PlanSubject,
  planSubjectSchema,
  type WriteCall,
} from './deployment-planner.ts';
export {
  type DeploymentProgress,
  STEP_KINDS,
  type StepState,
  type TargetState,
} from './deployment-progress.ts';
export {
  DeploymentRunner,
  type DeploymentRunnerDeps,
  RollbackRefused,
  type Submission,
} from './deployment-runner.ts';
export {
  DEPLOYMENT_STATUSES,
  type DeploymentStatus,
  isRollbackable,
  STEP_STATUSES,
  TARGET_STATUSES,
} from './deployment-state.ts';
export { DeploymentStore, type Gate, type GateDecision, type StoredDeployment } from './deployment-store.ts';
export { type DeploymentTables, deploymentsMigration } from './deployment-tables.ts';
export { callbackGateId, StepFailure } from './steps/index.ts';
export { ANNOTATIONS, VERSION_LABEL, WORKLOAD_LABEL } from './versioned-manifests.ts';
export { type WebhookRoute, type WebhookSender, webhookSender } from './webhook-sender.ts';
