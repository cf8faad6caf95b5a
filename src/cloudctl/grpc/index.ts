// The agent-facing gRPC transport: the endpoint the feature services are mounted on, and what the
// services share. Domain logic lives in the features (sessions/, caching/, operations/).
export { type GrpcEndpoint, type GrpcService, startGrpcEndpoint } from './grpc-server.ts';
export { type RpcDeps, type RpcError, RpcFailure } from './rpc-deps.ts';
