// The OAuth feature's factory: client credentials (/clients, and the deprecated /oauth/clients) that
// administrators manage, the token endpoint webhook jobs call for their access tokens, GET /auth/cli,
// which tells `cloudctl login --sso` the provider's public client, and the service the status page's
// credentials screen calls.
import type { CredentialRevocations } from '../auth/index.ts';
import type { CloudctlConfig } from '../config/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { cliSignInRoute } from './cli-sign-in-route.ts';
import { ClientCredentials } from './client-credentials.ts';
import { clientRoutes } from './client-routes.ts';
import { credentialRoutes } from './credential-routes.ts';
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
  /** Told when a credential is revoked or rotated: the agent streams open with it end. */
  revocations: CredentialRevocations;
}

export interface OAuthFeature extends Feature {
  routes: Route[];
  /** Client credentials as the status page manages them. */
  credentials: ClientCredentials;
}

export function oauthFeature(deps: OAuthFeatureDeps): OAuthFeature {
  const issuer = new TokenIssuer({
    store: deps.store,
    now: deps.now,
    lifetimeSeconds: deps.config.oauth.tokenLifetimeSeconds,
  });
  const credentials = new ClientCredentials(deps);
  return {
    name: 'oauth',
    phase: 'services',
    credentials,
    routes: [
      ...credentialRoutes(credentials),
      ...clientRoutes(credentials),
      tokenRoute(issuer, deps.externalUrl),
      cliSignInRoute(deps.config.auth.oidc),
    ],
  };
}
