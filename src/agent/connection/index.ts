// The agent's connection to the control plane (cloudctl): credentials, token command, proxy,
// reconnect policy, keep-alive, the session stream and the result outbox. Other folders import from
// here only.
export { channelPlan } from './channel-options.ts';
export { CONNECTION_ERRORS, ConnectionError, type ConnectionErrorCode } from './connection-error.ts';
export type { StateListener } from './connection-state.ts';
export {
  type AccountState,
  ControlPlaneConnection,
  type ControlPlaneConnectionOptions,
} from './control-plane-connection.ts';
export { channelCredentials } from './credentials.ts';
export type { Environment } from './proxy-env.ts';
export {
  type AgentIdentity,
  type HelloDynamicAccounts,
  identityFromEnv,
  type RegisteredAccount,
  type Registration,
} from './registration.ts';
export {
  type AccountCacheDirective,
  type RegisteredInfo,
  SESSION_END_REASONS,
  type SessionEndReason,
} from './session.ts';
