// The agent-facing gRPC transport: the endpoint the feature services are mounted on, and what the
// services end calls with. Domain logic and each service's dependencies live in the features
// (sessions/, caching/, operations/).
export { type GrpcEndpoint, type GrpcService, startGrpcEndpoint } from './grpc-server.ts';
export { type RpcError, RpcFailure } from './rpc-failure.ts';
