// cloudctl, the control plane: start it, and reach its parts (registry, operations, store).
export { type CloudctlConfig, loadConfig, parseConfig } from './config/index.ts';
export { type ControlPlane, type ControlPlaneDeps, startControlPlane } from './control-plane.ts';
export { CLOUDCTL_ERRORS, CloudctlError, type CloudctlErrorCode } from './errors.ts';
export {
  AGENT_SERVICES,
  hashToken,
  type OperationOutcome,
  type OperationRequest,
  type SessionView,
} from './grpc/index.ts';
export type { CachedResource, ResumeVersion, StoredAccount, StoredOperation } from './store/index.ts';
