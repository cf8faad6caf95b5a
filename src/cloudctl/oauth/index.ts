// OAuth 2.0 client credentials: clients created by administrators, the token endpoint webhook jobs
// call, and the tokens' place among the HTTP API's bearer tokens.
import type { Route } from '../http/index.ts';
import { clientRoutes } from './client-routes.ts';
import type { OAuthStore } from './oauth-store.ts';
import { TokenIssuer } from './token-issuer.ts';
import { tokenRoute } from './token-route.ts';

export { OAuthStore } from './oauth-store.ts';
export { type OAuthTables, oauthMigration } from './oauth-tables.ts';
export { clientPrincipalName, oauthTokens } from './oauth-token-source.ts';

export interface OAuthRoutesDeps {
  store: OAuthStore;
  now: () => Date;
  /** `oauth.tokenLifetimeSeconds`. */
  tokenLifetimeSeconds: number;
}

export function oauthRoutes(deps: OAuthRoutesDeps): Route[] {
  const issuer = new TokenIssuer({
    store: deps.store,
    now: deps.now,
    lifetimeSeconds: deps.tokenLifetimeSeconds,
  });
  return [...clientRoutes(deps), tokenRoute(issuer)];
}
