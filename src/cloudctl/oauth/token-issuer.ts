// Issues access tokens for the client-credentials grant. Tokens are opaque random strings kept as
// SHA-256 hashes with an expiry, not signed tokens: every request already asks the database whether
// the client is revoked (a signed token would need that lookup too to stop working at revocation),
// and there is no signing key to keep, rotate or leak.
import { hashSecret, newSecret, secretMatches } from './client-secret.ts';
import { type OAuthErrorBody, oauthError } from './oauth-errors.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { TokenRequest, TokenResponse } from './token-request.ts';

export interface TokenIssuerDeps {
  store: OAuthStore;
  now: () => Date;
  /** How long an issued token is valid (`oauth.tokenLifetimeSeconds`). */
  lifetimeSeconds: number;
}

export type Issued = { ok: true; token: TokenResponse } | { ok: false; refusal: OAuthErrorBody };

export const CLIENT_CREDENTIALS = 'client_credentials';

export class TokenIssuer {
  readonly #deps: TokenIssuerDeps;

  constructor(deps: TokenIssuerDeps) {
    this.#deps = deps;
  }

  async issue(request: TokenRequest): Promise<Issued> {
    if (request.grant_type !== CLIENT_CREDENTIALS) {
      return {
        ok: false,
        refusal: oauthError('unsupported_grant_type', `grant_type must be ${CLIENT_CREDENTIALS}`),
      };
    }
    const client = await this.#deps.store.client(request.client_id);
    // One answer for an unknown client, a wrong secret and a revoked client: the caller learns
    // nothing about which client ids exist.
    if (
      client === undefined ||
      client.revokedAt !== null ||
      !secretMatches(request.client_secret, client.secretHash)
    ) {
      return {
        ok: false,
        refusal: oauthError('invalid_client', 'unknown client, wrong secret or revoked client'),
      };
    }
    const token = newSecret();
    const issuedAt = this.#deps.now();
    const expiresAt = new Date(issuedAt.getTime() + this.#deps.lifetimeSeconds * 1000);
    await this.#deps.store.addToken(hashSecret(token), client.clientId, issuedAt, expiresAt);
    return {
      ok: true,
      token: { access_token: token, expires_in: this.#deps.lifetimeSeconds, token_type: 'Bearer' },
    };
  }
}
