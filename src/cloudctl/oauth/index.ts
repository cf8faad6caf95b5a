// OAuth 2.0 client credentials: clients created by administrators, the token endpoint webhook jobs
// call, and the tokens' place among the HTTP API's bearer tokens.
export { type OAuthFeature, type OAuthFeatureDeps, oauthFeature } from './oauth-feature.ts';
export { OAuthStore } from './oauth-store.ts';
export { type OAuthTables, oauthMigration } from './oauth-tables.ts';
export { clientPrincipalName, oauthTokens } from './oauth-token-source.ts';
