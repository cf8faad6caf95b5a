// The OAuth feature's factory: the client routes administrators manage clients with, the token
// endpoint webhook jobs call for their access tokens, and GET /auth/cli, which tells `cloudctl login
// --sso` the provider's public client.
import type { CloudctlConfig } from '../config/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { cliSignInRoute } from './cli-sign-in-route.ts';
import { clientRoutes } from './client-routes.ts';
import type { OAuthStore } from './oauth-store.ts';
import { TokenIssuer } from './token-issuer.ts';
import { tokenRoute } from './token-route.ts';

export interface OAuthFeatureDeps {
  store: OAuthStore;
  now: () => Date;
  /** `oauth.*`, and `auth.oidc` when configured: its `cli` client is what GET /auth/cli answers. */
  config: Pick<CloudctlConfig, 'oauth' | 'auth'>;
  /** Where cloudctl's API is reached: the audience a token request may name. */
  externalUrl: () => string;
}

export interface OAuthFeature extends Feature {
  routes: Route[];
}

export function oauthFeature(deps: OAuthFeatureDeps): OAuthFeature {
  const issuer = new TokenIssuer({
    store: deps.store,
    now: deps.now,
    lifetimeSeconds: deps.config.oauth.tokenLifetimeSeconds,
  });
  return {
    name: 'oauth',
    phase: 'services',
    routes: [
      ...clientRoutes(deps),
      tokenRoute(issuer, deps.externalUrl),
      cliSignInRoute(deps.config.auth.oidc),
    ],
  };
}
