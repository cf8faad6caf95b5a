// cloudctl, the control plane: start it, and reach its parts (registry, operations, stores, database).
export { hashToken } from './auth/index.ts';
export type { CachedResource, ResumeVersion } from './caching/index.ts';
export {
  type CloudctlStores,
  openCloudctlDatabase,
  openStores,
} from './cloudctl-stores.ts';
export { type CloudctlConfig, loadConfig, parseConfig, secretEngines } from './config/index.ts';
export { type ControlPlane, type ControlPlaneDeps, startControlPlane } from './control-plane.ts';
export { CLOUDCTL_ERRORS, CloudctlError, type CloudctlErrorCode } from './errors.ts';
export type { CloudctlDatabase } from './migrations.ts';
export type { OperationOutcome, OperationRequest, StoredOperation } from './operations/index.ts';
export type { SessionView, StoredAccount } from './sessions/index.ts';
