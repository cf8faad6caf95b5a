// Where a bearer token can come from. Users from the config file are one source, the access tokens
// of the OAuth client-credentials flow another, an OpenID Connect provider's JWTs a third: each
// answers for the tokens it issued and ignores the rest, so the authenticator needs no change to take
// a new one. A source that recognises a token as its own but finds it unusable (expired, signed by
// another key) refuses it with the reason, so the caller learns what to fix.
export interface TokenIdentity {
  name: string;
  roles: readonly string[];
}

export interface TokenRefusal {
  /** What is wrong with the token, for the 401 answer; never the token itself. */
  refused: string;
}

export interface TokenSource {
  /** Who the token belongs to, why it is refused, or undefined when this source did not issue it. */
  identify(token: string): Promise<TokenIdentity | TokenRefusal | undefined>;
}
