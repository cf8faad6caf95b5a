// Who is calling and what they may do: agents over gRPC (tokens and client certificates), users of
// the HTTP API (bearer tokens from pluggable sources: config users, OAuth clients, an OpenID Connect
// provider's JWTs), and account permissions.
export { type Access, type AccountPermissions, isRestricted, mayAccess } from './account-access.ts';
export {
  AgentAuthenticator,
  type Authentication,
  type CallCredentials,
  CREDENTIAL_WITHDRAWN,
  hashToken,
  type RpcRefusal,
} from './agent-authenticator.ts';
export type {
  AgentCredentialSource,
  NotAnAgentCredential,
  RuntimeAgentCredential,
} from './agent-credential-source.ts';
export { configUsers } from './config-users.ts';
export { CredentialRevocations } from './credential-revocations.ts';
export { type OidcDiscovery, OidcProvider, OidcProviderUnreachable } from './oidc-provider.ts';
export { oidcTokens } from './oidc-tokens.ts';
export type { Principal } from './principal.ts';
export type { TokenIdentity, TokenRefusal, TokenSource } from './token-source.ts';
export { NO_CREDENTIAL, type UserAuthentication, UserAuthenticator } from './user-authenticator.ts';
