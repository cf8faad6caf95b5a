// The access tokens of client-credentials clients as a source of the HTTP API's authenticator: a
// token proves its client, which acts with the client's role like a user with that role.
import type { TokenSource } from '../auth/index.ts';
import { hashSecret } from './client-secret.ts';
import type { OAuthStore } from './oauth-store.ts';

/** The name a client acts under in logs and task owners. */
export function clientPrincipalName(clientId: string): string {
  return `oauth-client:${clientId}`;
}

export function oauthTokens(store: OAuthStore, now: () => Date): TokenSource {
  return {
    identify: async (token) => {
      const owner = await store.tokenOwner(hashSecret(token), now());
      return owner === undefined
        ? undefined
        : { name: clientPrincipalName(owner.clientId), roles: [owner.role] };
    },
  };
}
