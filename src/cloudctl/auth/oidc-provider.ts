// The OpenID Connect provider as cloudctl needs it: its discovery document, read on first use (so
// cloudctl starts while the provider is down) and kept once read, and its signing keys, cached and
// fetched again when a token names a key cloudctl has not seen (the provider rotated) but at most once
// per refetch period, so a stream of forged key ids cannot turn cloudctl into a load generator
// against the provider. A failed discovery is retried after the same period, not on every request.
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { OidcSettings } from '../config/index.ts';

/** The fields of the discovery document cloudctl reads (OpenID Connect Discovery 1.0, section 3). */
const discoverySchema = z.object({
  issuer: z.string(),
  jwks_uri: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url().optional(),
});
export type OidcDiscovery = z.infer<typeof discoverySchema>;

export class OidcProviderUnreachable extends Error {}

export class OidcProvider {
  readonly #settings: OidcSettings;
  readonly #now: () => Date;
  #found: { discovery: OidcDiscovery; keys: JWTVerifyGetKey } | undefined;
  /** The last failed discovery: a retry waits for the refetch period, like the key set. */
  #failure: { at: number; reason: string } | undefined;

  constructor(settings: OidcSettings, now: () => Date) {
    this.#settings = settings;
    this.#now = now;
  }

  get settings(): OidcSettings {
    return this.#settings;
  }

  /** The provider's key set, discovering it first if need be. */
  async keys(): Promise<JWTVerifyGetKey> {
    return (await this.#discovered()).keys;
  }

  /** The provider's discovery document. */
  async discovery(): Promise<OidcDiscovery> {
    return (await this.#discovered()).discovery;
  }

  async #discovered(): Promise<{ discovery: OidcDiscovery; keys: JWTVerifyGetKey }> {
    if (this.#found !== undefined) return this.#found;
    const at = this.#now().getTime();
    if (this.#failure !== undefined && at - this.#failure.at < this.#settings.jwksRefetchSeconds * 1000) {
      throw new OidcProviderUnreachable(this.#failure.reason);
    }
    try {
      const discovery = await this.#discover();
      const keys = createRemoteJWKSet(new URL(discovery.jwks_uri), {
        cooldownDuration: this.#settings.jwksRefetchSeconds * 1000,
        cacheMaxAge: this.#settings.jwksMaxAgeSeconds * 1000,
        timeoutDuration: this.#settings.timeoutSeconds * 1000,
      });
      this.#found = { discovery, keys };
      this.#failure = undefined;
      return this.#found;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#failure = { at, reason };
      throw new OidcProviderUnreachable(reason);
    }
  }

  async #discover(): Promise<OidcDiscovery> {
    // The issuer may have a path; discovery appends to it (Discovery 1.0, section 4).
    const url = `${this.#settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(this.#settings.timeoutSeconds * 1000) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const parsed = discoverySchema.safeParse(await response.json());
    if (!parsed.success) {
      throw new Error(`${url} is not a discovery document: ${z.prettifyError(parsed.error)}`);
    }
    // The document must name the issuer it was read from, or another party could stand in for it.
    if (parsed.data.issuer !== this.#settings.issuer) {
      throw new Error(`${url} names issuer ${parsed.data.issuer}, not ${this.#settings.issuer}`);
    }
    return parsed.data;
  }
}
