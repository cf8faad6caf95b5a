// Operations on clusters: sent to the agent serving the account, results recorded once
// (orchagent.v1.OperationResults) and handed to whoever waits.
export {
  type AgentOperations,
  agentAnswerError,
  askAgent,
  askAgentIfPresent,
  type FailedAnswer,
} from './agent-answer.ts';
export {
  OperationDispatcher,
  type OperationOutcome,
  type OperationRequest,
  type RecordedResult,
} from './operation-dispatcher.ts';
export { type OperationResultsRpcDeps, operationResultsHandlers } from './operation-results-rpc.ts';
export type { OperationRouter, RemoteSession } from './operation-router.ts';
export {
  type NewOperation,
  OperationStore,
  type RecordOutcome,
  type ReportedResult,
  type StoredOperation,
} from './operation-store.ts';
export {
  createOperationTables,
  type OperationTables,
  operationErrorCodeMigration,
} from './operation-tables.ts';
export {
  type OperationsFeature,
  type OperationsFeatureDeps,
  operationsFeature,
} from './operations-feature.ts';
