// Agent sessions: the live registry of connected agents, their durable record, and the
// orchagent.v1.AgentSession service that opens and ends them.
export {
  AgentRegistry,
  type AgentSession,
  type DynamicAccountSettings,
  type SessionAccount,
  type SessionView,
} from './agent-registry.ts';
export {
  type AccountRegistration,
  type AccountState,
  type AgentRegistration,
  AgentStore,
  type StoredAccount,
  type StoredAgent,
} from './agent-store.ts';
export { type RemoteSessionFinder, SessionFinder } from './session-finder.ts';
export type {
  AccountReport,
  CacheDirective,
  SessionListener,
} from './session-listener.ts';
export { createSessionTables, type SessionTables } from './session-tables.ts';
export { type SessionsFeature, type SessionsFeatureDeps, sessionsFeature } from './sessions-feature.ts';
