// The deployments feature: deployment files (schema, loader with located errors, manifests read),
// webhook requests (rendered, sent, described for logs without secrets), the runner that carries a
// deployment through its steps across restarts, and its HTTP routes. Other folders import from here.
export { DEPLOYMENT_ERRORS, DeploymentError, type DeploymentErrorCode } from './deployment-errors.ts';
export type { BlueGreenStrategy, RedirectTrafficStep } from './deployment-file/blue-green-strategy.ts';
export type { CanaryStep, CanaryStrategy } from './deployment-file/canary-strategy.ts';
export type { DeploymentFile } from './deployment-file/deployment-file-schema.ts';
export { type Duration, durationMs } from './deployment-file/duration.ts';
export {
  type FailedDeployment,
  type LoadedDeployment,
  loadDeploymentFile,
  type ParseDeploymentOptions,
  parseDeploymentFile,
} from './deployment-file/load-deployment-file.ts';
export type { ManifestObject } from './deployment-file/manifest-documents.ts';
export type { ResolvedManifest } from './deployment-file/manifest-sources.ts';
export type { PauseStep } from './deployment-file/pause-step.ts';
export type { RunWebhookStep } from './deployment-file/run-webhook-step.ts';
export type { Strategy } from './deployment-file/strategy.ts';
export type { ConstraintStep, Target } from './deployment-file/target.ts';
export {
  VENDOR_VARIABLES,
  type VendorValues,
  type VendorVariable,
} from './deployment-file/vendor-variables.ts';
export type { Webhook, WebhookHeader } from './deployment-file/webhook.ts';
export {
  type DeploymentsFeature,
  type DeploymentsFeatureDeps,
  deploymentsFeature,
} from './deployments-feature.ts';
export {
  type DeploymentDecisionDeps,
  decideApproval,
  mayDecide,
  mayRollBack,
  mayRollBackNow,
  readableDeployment,
  readableDeployments,
  rollBackDeployment,
  type WaitingApproval,
  waitingApprovals,
} from './http/deployment-decisions.ts';
export { type DeploymentRoutesDeps, deploymentRoutes } from './http/deployment-routes.ts';
export { type DeploymentView, deploymentView, deploymentViewSchema } from './http/deployment-view.ts';
export {
  DeploymentRunner,
  DeploymentStore,
  type DeploymentTables,
  deploymentsMigration,
  type StoredDeployment,
  webhookSender,
} from './run/index.ts';
export { describeWebhookRequest } from './webhook/describe-webhook-request.ts';
export {
  directWebhookTransport,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  WEBHOOK_RESPONSE_LIMIT_BYTES,
} from './webhook/direct-webhook-transport.ts';
export {
  type ExecuteOnAgent,
  type HttpRequestPayload,
  remoteAgentWebhookTransport,
} from './webhook/remote-agent-webhook-transport.ts';
export {
  type RenderedHeader,
  type RenderedWebhookRequest,
  renderWebhookRequest,
} from './webhook/render-webhook-request.ts';
export {
  sendWebhookRequest,
  WEBHOOK_RETRY_BACKOFF,
  type WebhookResponse,
  type WebhookSendDeps,
} from './webhook/send-webhook-request.ts';
export { webhookSecrets } from './webhook/webhook-secrets.ts';
export type {
  WebhookTransport,
  WebhookTransportAnswer,
  WebhookTransportRequest,
} from './webhook/webhook-transport.ts';
