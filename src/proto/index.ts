// The agent <-> control plane contract (package orchagent.v1) as TypeScript: the loader, and the
// message, client and handler types generated from proto/orchagent/v1. Both programs import from here.

export { repairFileDescriptors } from './file-descriptors.ts';
export type { Account, Account__Output } from './gen/orchagent/v1/Account.ts';
export type { AccountDefinition } from './gen/orchagent/v1/AccountDefinition.ts';
export type { AccountStatus, AccountStatus__Output } from './gen/orchagent/v1/AccountStatus.ts';
export type { AgentMessage, AgentMessage__Output } from './gen/orchagent/v1/AgentMessage.ts';
export type { AgentSessionClient, AgentSessionHandlers } from './gen/orchagent/v1/AgentSession.ts';
export type { CacheAck, CacheAck__Output } from './gen/orchagent/v1/CacheAck.ts';
export type { CacheBatch, CacheBatch__Output } from './gen/orchagent/v1/CacheBatch.ts';
export type { CacheItem, CacheItem__Output } from './gen/orchagent/v1/CacheItem.ts';
export type { CachingClient, CachingHandlers } from './gen/orchagent/v1/Caching.ts';
export type { ControlMessage, ControlMessage__Output } from './gen/orchagent/v1/ControlMessage.ts';
export type { GetResumeVersionsResponse__Output } from './gen/orchagent/v1/GetResumeVersionsResponse.ts';
export type { Hello, Hello__Output } from './gen/orchagent/v1/Hello.ts';
export type { Operation, Operation__Output } from './gen/orchagent/v1/Operation.ts';
export type { OperationResult, OperationResult__Output } from './gen/orchagent/v1/OperationResult.ts';
export type {
  OperationResultsClient,
  OperationResultsHandlers,
} from './gen/orchagent/v1/OperationResults.ts';
export type { ResourceEvent, ResourceEvent__Output } from './gen/orchagent/v1/ResourceEvent.ts';
export type { ResumeVersion, ResumeVersion__Output } from './gen/orchagent/v1/ResumeVersion.ts';
export type { WatchScope, WatchScope__Output } from './gen/orchagent/v1/WatchScope.ts';
export {
  LOADER_OPTIONS,
  type LoadedContract,
  loadContract,
  type OrchAgentProto,
  PROTO_FILES,
  PROTO_ROOT,
  serviceDefinitions,
} from './load.ts';
export { fromTimestamp, toTimestamp } from './timestamp.ts';
