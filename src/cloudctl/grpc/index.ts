// The agent-facing gRPC side of cloudctl: authentication, the live registry, the internal operation
// API and the endpoint that serves the orchagent.v1 services.
export { type AccountAssignment, AccountAssignments } from './account-assignments.ts';
export { AgentRegistry, type AgentSession, type SessionAccount, type SessionView } from './agent-registry.ts';
export { Authenticator, hashToken } from './authenticator.ts';
export { AGENT_SERVICES, type GrpcEndpoint, startGrpcEndpoint } from './grpc-server.ts';
export {
  OperationDispatcher,
  type OperationOutcome,
  type OperationRequest,
} from './operation-dispatcher.ts';
export type { ServiceDeps } from './service-deps.ts';
