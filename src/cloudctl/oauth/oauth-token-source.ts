// The access tokens of client-credentials clients as a source of the HTTP API's authenticator: a
// Deployments Full Access client's token acts with the client's roles like a user with those roles.
// A remote network agent's token is refused: such a credential is for an agent's gRPC connection,
// and a leaked agent secret must not reach the deployment API.
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
      if (owner === undefined) return undefined;
      if (owner.type === 'remoteNetworkAgent')
        return {
          refused: `the bearer token belongs to remote network agent credential ${owner.clientId}, which connects an agent and may not call the HTTP API`,
        };
      return { name: clientPrincipalName(owner.clientId), roles: owner.roles };
    },
  };
}
