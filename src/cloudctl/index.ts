// cloudctl, the control plane: start it, and reach its parts (registry, operations, store).
export { hashToken } from './auth/index.ts';
export type { CachedResource, ResumeVersion } from './caching/index.ts';
export { type CloudctlConfig, loadConfig, parseConfig } from './config/index.ts';
export {
  AGENT_SERVICES,
  type ControlPlane,
  type ControlPlaneDeps,
  startControlPlane,
} from './control-plane.ts';
export { CLOUDCTL_ERRORS, CloudctlError, type CloudctlErrorCode } from './errors.ts';
export type { OperationOutcome, OperationRequest, StoredOperation } from './operations/index.ts';
export type { SessionView, StoredAccount } from './sessions/index.ts';
