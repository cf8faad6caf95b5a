// Who is calling the HTTP API: the user a bearer token proves, asked of each token source in turn;
// or the anonymous user, when the config allows requests without a token. A token is never logged
// or echoed: refusals say what was wrong with the header, not what it held.
import type { CloudctlConfig } from '../config/index.ts';
import type { Principal } from './principal.ts';
import type { TokenSource } from './token-source.ts';

export type UserAuthentication = { ok: true; principal: Principal } | { ok: false; reason: string };

const BEARER = /^Bearer[ \t]+([!-~]+)[ \t]*$/i;

/** Why a request without any credential is refused (the status page shows its sign-in form instead). */
export const NO_CREDENTIAL = 'this request needs a bearer token (Authorization: Bearer <token>)';

export class UserAuthenticator {
  readonly #sources: readonly TokenSource[];
  readonly #adminRoles: ReadonlySet<string>;
  readonly #anonymous: CloudctlConfig['auth']['anonymous'];

  constructor(sources: readonly TokenSource[], auth: CloudctlConfig['auth']) {
    this.#sources = sources;
    this.#adminRoles = new Set(auth.adminRoles);
    this.#anonymous = auth.anonymous;
  }

  principal(name: string, roles: readonly string[], anonymous = false): Principal {
    return { name, roles, anonymous, admin: roles.some((role) => this.#adminRoles.has(role)) };
  }

  async authenticate(authorization: string | undefined): Promise<UserAuthentication> {
    if (authorization === undefined || authorization === '') {
      if (this.#anonymous.enabled) {
        return { ok: true, principal: this.principal('anonymous', this.#anonymous.roles, true) };
      }
      return { ok: false, reason: NO_CREDENTIAL };
    }
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) return { ok: false, reason: 'the Authorization header is not a bearer token' };
    for (const source of this.#sources) {
      const identity = await source.identify(token);
      if (identity === undefined) continue;
      // A source that knows the token's kind has the last word: no other source issued it.
      if ('refused' in identity) return { ok: false, reason: identity.refused };
      return { ok: true, principal: this.principal(identity.name, identity.roles) };
    }
    return { ok: false, reason: 'the bearer token is not known' };
  }
}
