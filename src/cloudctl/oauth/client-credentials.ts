// Client credentials as administrators manage them, written once for the API (/clients, and the
// deprecated /oauth/clients) and the status page alike: create (the secret answered this once),
// list (never a secret), revoke and rotate. Revoking or rotating ends the credential's access tokens
// and, through the revocations, the agent streams open with it.
//
// A rotation retires the old secret at once, with no grace period: a rotation is most often for a
// secret that leaked, and a grace would keep the leak open. Replacing a secret without an agent ever
// being refused is done with a second credential for the same agent: create it, give the agent the
// new secret, then revoke the first.
import type { CredentialRevocations, Principal } from '../auth/index.ts';
import { HttpError } from '../http/index.ts';
import { hashSecret, newClientId, newSecret } from './client-secret.ts';
import { type CredentialSecret, credentialView, type NewCredential } from './client-views.ts';
import type { OAuthStore, StoredClient } from './oauth-store.ts';

export interface ClientCredentialsDeps {
  store: OAuthStore;
  now: () => Date;
  /** Told of every revocation and rotation, so the agent streams of that credential end. */
  revocations: CredentialRevocations;
}

/** Only administrators manage client credentials: a credential can carry any role. */
function requireAdmin(user: Principal): void {
  if (!user.admin) throw new HttpError('FORBIDDEN', 'only an administrator manages client credentials');
}

export class ClientCredentials {
  readonly #deps: ClientCredentialsDeps;

  constructor(deps: ClientCredentialsDeps) {
    this.#deps = deps;
  }

  /** Whether `user` may manage credentials (the page shows its forms only then). */
  mayManage(user: Principal): boolean {
    return user.admin;
  }

  async create(user: Principal, body: NewCredential): Promise<CredentialSecret> {
    requireAdmin(user);
    const secret = newSecret();
    const client: Omit<StoredClient, 'revokedAt' | 'rotatedAt'> = {
      clientId: newClientId(),
      name: body.name,
      type: body.type,
      roles: body.roles,
      agentId: body.type === 'remoteNetworkAgent' ? (body.agentId ?? null) : null,
      secretHash: hashSecret(secret),
      createdBy: user.name,
      createdAt: this.#deps.now(),
    };
    await this.#deps.store.createClient(client);
    return { ...credentialView({ ...client, rotatedAt: null, revokedAt: null }), clientSecret: secret };
  }

  async list(user: Principal): Promise<StoredClient[]> {
    requireAdmin(user);
    return this.#deps.store.listClients();
  }

  async revoke(user: Principal, clientId: string): Promise<StoredClient> {
    requireAdmin(user);
    const revoked = await this.#deps.store.revokeClient(clientId, this.#deps.now());
    if (revoked === undefined) throw new HttpError('NOT_FOUND', `no client credential ${clientId}`);
    this.#deps.revocations.revoked(clientId);
    return revoked;
  }

  /** A new secret, answered this once; the old one (and its tokens and agent streams) stops at once. */
  async rotate(user: Principal, clientId: string): Promise<CredentialSecret> {
    requireAdmin(user);
    const secret = newSecret();
    const rotated = await this.#deps.store.rotateClient(clientId, hashSecret(secret), this.#deps.now());
    if (rotated === undefined) throw new HttpError('NOT_FOUND', `no client credential ${clientId}`);
    if (rotated.revokedAt !== null)
      throw new HttpError(
        'CONFLICT',
        `client credential ${clientId} was revoked at ${rotated.revokedAt.toISOString()}; create a new one`,
      );
    this.#deps.revocations.revoked(clientId);
    return { ...credentialView(rotated), clientSecret: secret };
  }
}
