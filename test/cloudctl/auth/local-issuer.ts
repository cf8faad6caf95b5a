// A small OpenID Connect issuer for the tests that need tokens cloudctl must refuse in ways a real
// provider never issues (expired long ago, from the future, re-signed with a stray key): a real HTTP
// server on a loopback port serving the discovery document and the key set, signing with keys it
// generates, counting the key-set fetches, and rotating keys on demand.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export class LocalIssuer {
  readonly #server: Server;
  /** Published keys, the newest first; tokens are signed with the newest. */
  keys: SigningKey[];
  jwksFetches = 0;

  private constructor(server: Server, keys: SigningKey[]) {
    this.#server = server;
    this.keys = keys;
  }

  static async start(): Promise<LocalIssuer> {
    const server = createServer();
    const issuer = new LocalIssuer(server, [await signingKey('key-1')]);
    server.on('request', (request, response) => {
      let body: unknown;
      if (request.url === '/.well-known/openid-configuration') {
        body = {
          issuer: issuer.url,
          jwks_uri: `${issuer.url}/jwks.json`,
          authorization_endpoint: `${issuer.url}/authorize`,
        };
      } else if (request.url === '/jwks.json') {
        issuer.jwksFetches++;
        body = { keys: issuer.keys.map((key) => key.publicJwk) };
      }
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return issuer;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** A new key published before the others, as a provider rotating its keys does. */
  async rotate(kid: string): Promise<void> {
    this.keys = [await signingKey(kid), ...this.keys];
  }

  /**
   * A token with these claims on top of valid ones (this issuer, the audience, a lifetime around now),
   * signed with the newest key unless another is given.
   */
  async token(claims: JWTPayload, options: { key?: SigningKey; audience?: string } = {}): Promise<string> {
    const key = options.key ?? this.keys[0];
    if (key === undefined) throw new Error('no signing key');
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: this.url,
      aud: options.audience ?? 'cloudctl-api',
      sub: 'alice',
      iat: now,
      nbf: now,
      exp: now + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
