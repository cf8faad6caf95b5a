// OAuth 2.0 client credentials: credentials created by administrators (Deployments Full Access, or a
// remote network agent's), the token endpoint webhook jobs call, the tokens' place among the HTTP
// API's bearer tokens, and the agents a remote network agent credential proves.
export { agentCredentials } from './agent-credentials.ts';
export type { ClientCredentials } from './client-credentials.ts';
export { CLIENT_TYPES, type ClientType } from './client-type.ts';
export {
  type CredentialSecret,
  type CredentialView,
  credentialSecretSchema,
  credentialView,
  credentialViewSchema,
  type NewCredential,
  newCredentialSchema,
} from './client-views.ts';
export { type OAuthFeature, type OAuthFeatureDeps, oauthFeature } from './oauth-feature.ts';
export { OAuthStore, type StoredClient } from './oauth-store.ts';
export { clientCredentialsMigration, type OAuthTables, oauthMigration } from './oauth-tables.ts';
export { clientPrincipalName, oauthTokens } from './oauth-token-source.ts';
