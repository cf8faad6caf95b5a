// A Google access token with the account's scopes (google-token-source.ts), from a token endpoint on
// a real socket that checks the signed assertion as Google does: the signature with the service
// account's public key, iss, aud, the hour's validity, and the scopes exactly. The clock is shared
// with the endpoint, so an hour passes without waiting.
import { afterEach, describe, expect, it } from 'vitest';
import { readGoogleServiceAccountKey } from '../../src/kube/google-service-account-key.ts';
import {
  GOOGLE_DEFAULT_SCOPES,
  GoogleKeyFileError,
  GoogleTokenError,
  GoogleTokenSource,
} from '../../src/kube/index.ts';
import { writeConfig } from '../agent/config/config-fixture.ts';
import {
  newServiceAccount,
  type ServiceAccount,
  startTokenEndpoint,
  type TokenEndpoint,
  writeKeyFile,
} from '../support/google-token-endpoint.ts';
import { tempDir } from '../support/temp-dir.ts';

const SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform.read-only',
  'https://www.googleapis.com/auth/userinfo.email',
];
const account: ServiceAccount = newServiceAccount();
let endpoint: TokenEndpoint | undefined;

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** A token source and its endpoint on one movable clock; tokens are `token-1`, `token-2`, ... */
async function setUp(
  options: { expiresIn?: number; scopes?: readonly string[]; asked?: readonly string[] } = {},
) {
  const clock = { ms: Date.now() };
  const now = () => clock.ms;
  let issued = 0;
  endpoint = await startTokenEndpoint({
    key: account,
    scopes: options.scopes ?? SCOPES,
    now,
    issue: () => ({ access_token: `token-${++issued}`, expires_in: options.expiresIn ?? 3600 }),
  });
  const key = readGoogleServiceAccountKey(writeKeyFile(tempDir(), account, endpoint.url));
  const source = new GoogleTokenSource({ key, scopes: options.asked ?? SCOPES, now });
  return { source, endpoint, clock };
}

describe('GoogleTokenSource', () => {
  it('asks for exactly the configured scopes with a signed assertion, and keeps the token until 5 minutes before expiry', async () => {
    const { source, endpoint, clock } = await setUp();
    expect(await source.token()).toBe('token-1');
    expect(await source.token()).toBe('token-1');
    expect(endpoint.exchanges).toHaveLength(1);
    const [first] = endpoint.exchanges;
    expect(first?.refused).toBeUndefined();
    expect(first?.claims).toMatchObject({
      iss: account.clientEmail,
      aud: endpoint.url,
      scope: SCOPES.join(' '),
    });
    expect(first?.header).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
      kid: expect.stringMatching(/^[0-9a-f]{40}$/),
    });

    clock.ms += 3299_000;
    expect(await source.token()).toBe('token-1');
    expect(endpoint.exchanges).toHaveLength(1);
    clock.ms += 2_000;
    expect(await source.token()).toBe('token-2');
    expect(endpoint.exchanges.map((e) => e.refused)).toEqual([undefined, undefined]);
  });

  it('refreshes a short-lived token half-way through its life', async () => {
    const { source, endpoint, clock } = await setUp({ expiresIn: 60 });
    expect(await source.token()).toBe('token-1');
    clock.ms += 29_000;
    expect(await source.token()).toBe('token-1');
    clock.ms += 2_000;
    expect(await source.token()).toBe('token-2');
    expect(endpoint.exchanges).toHaveLength(2);
  });

  it('makes one exchange for requests that arrive together', async () => {
    const { source, endpoint } = await setUp();
    const tokens = await Promise.all(Array.from({ length: 5 }, () => source.token()));
    expect(new Set(tokens)).toEqual(new Set(['token-1']));
    expect(endpoint.exchanges).toHaveLength(1);
  });

  it('fails a refused scope list naming the endpoint, the account and the scopes, and never the key or the assertion', async () => {
    const { source, endpoint } = await setUp({ scopes: GOOGLE_DEFAULT_SCOPES });
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoogleTokenError);
    const message = error instanceof Error ? error.message : '';
    expect(message).toBe(
      `the token endpoint ${endpoint.url} refused a Google access token for ${account.clientEmail} with scopes [${SCOPES.join(', ')}]: HTTP 400 invalid_scope: Invalid OAuth scope or ID token audience provided: ${SCOPES.join(' ')}`,
    );
    const assertion = endpoint.exchanges[0]?.form.assertion ?? '';
    expect(assertion.split('.')).toHaveLength(3);
    expect(message).not.toContain(assertion.split('.')[2]);
    expect(message).not.toContain('PRIVATE KEY');
  });

  it('fails when the endpoint fails or cannot be reached, naming it', async () => {
    const { source, endpoint } = await setUp();
    endpoint.failWith(503, { error: 'backendError' });
    await expect(source.token()).rejects.toThrow(
      `the token endpoint ${endpoint.url} refused a Google access token`,
    );
    await expect(source.token()).rejects.toThrow(/: HTTP 503 backendError$/);
    const url = endpoint.url;
    await endpoint.close();
    await expect(source.token()).rejects.toThrow(
      `cannot reach the token endpoint ${url} for a Google access token`,
    );
  });

  it('keeps using a token that has not expired while the endpoint fails, and fails once it has', async () => {
    const { source, endpoint, clock } = await setUp({ expiresIn: 600 });
    expect(await source.token()).toBe('token-1');
    endpoint.failWith(500, { error: 'internal_failure' });
    clock.ms += 301_000;
    expect(await source.token()).toBe('token-1');
    expect(endpoint.exchanges).toHaveLength(2);
    // The failed refresh is tried again 10 s later, not on every request.
    expect(await source.token()).toBe('token-1');
    expect(endpoint.exchanges).toHaveLength(2);
    clock.ms += 300_000;
    await expect(source.token()).rejects.toThrow(GoogleTokenError);
  });
});

describe('readGoogleServiceAccountKey', () => {
  it('names the file and the problem, never its content', () => {
    const notJson = writeConfig('{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIsecret', 'broken.json');
    expect(() => readGoogleServiceAccountKey(notJson)).toThrow(
      new GoogleKeyFileError(notJson, 'cannot read it: not valid JSON'),
    );
    const user = writeConfig(JSON.stringify({ type: 'authorized_user', refresh_token: 'r' }), 'user.json');
    expect(() => readGoogleServiceAccountKey(user)).toThrow(
      `Google service-account key file ${user}: type is 'authorized_user'; only service_account keys can sign the token request the scopes are asked in`,
    );
    const noUri = writeConfig(
      JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: account.privateKeyPem }),
      'no-uri.json',
    );
    expect(() => readGoogleServiceAccountKey(noUri)).toThrow(`${noUri}: token_uri:`);
  });
});
