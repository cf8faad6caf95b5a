// Storage of the control plane: PostgreSQL through Kysely, embedded (PGlite) or a server (pg).
export {
  type AccountRegistration,
  type AccountState,
  type AgentRegistration,
  AgentStore,
  type StoredAccount,
} from './agent-store.ts';
export {
  type ApplyOutcome,
  type CacheChange,
  type CachedResource,
  CacheStore,
  type ObjectKey,
  type ResumeVersion,
  type WatchScope,
} from './cache-store.ts';
export { type Database, type DatabaseTarget, openDatabase } from './database.ts';
export {
  type NewOperation,
  OperationStore,
  type RecordOutcome,
  type ReportedResult,
  type StoredOperation,
} from './operation-store.ts';
export { type CloudctlStore, openStore } from './store.ts';
