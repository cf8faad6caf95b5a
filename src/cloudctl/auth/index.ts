// Who is calling: agents over gRPC (tokens and client certificates).
export {
  AgentAuthenticator,
  type CallCredentials,
  hashToken,
  type RpcRefusal,
} from './agent-authenticator.ts';
