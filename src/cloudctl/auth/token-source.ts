// Where a bearer token can come from. Users from the config file are one source; the access tokens
// of the OAuth client-credentials flow (deployment service) will be another: each answers for the
// tokens it issued and ignores the rest, so the authenticator needs no change to take a new one.
export interface TokenIdentity {
  name: string;
  roles: readonly string[];
}

export interface TokenSource {
  /** Who the token belongs to, or undefined when this source did not issue it. */
  identify(token: string): Promise<TokenIdentity | undefined>;
}
