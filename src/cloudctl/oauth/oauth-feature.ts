// The OAuth feature's factory: the client routes administrators manage clients with, and the token
// endpoint webhook jobs call for their access tokens.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { clientRoutes } from './client-routes.ts';
import type { OAuthStore } from './oauth-store.ts';
import { TokenIssuer } from './token-issuer.ts';
import { tokenRoute } from './token-route.ts';

export interface OAuthFeatureDeps {
  store: OAuthStore;
  now: () => Date;
  /** `oauth.tokenLifetimeSeconds`. */
  tokenLifetimeSeconds: number;
}

export interface OAuthFeature extends Feature {
  routes: Route[];
}

export function oauthFeature(deps: OAuthFeatureDeps): OAuthFeature {
  const issuer = new TokenIssuer({
    store: deps.store,
    now: deps.now,
    lifetimeSeconds: deps.tokenLifetimeSeconds,
  });
  return { name: 'oauth', phase: 'services', routes: [...clientRoutes(deps), tokenRoute(issuer)] };
}
