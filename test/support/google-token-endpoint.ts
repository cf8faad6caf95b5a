// A Google-style OAuth 2.0 token endpoint for tests, on a real loopback socket: it takes the
// jwt-bearer grant a service account signs, checks the assertion as Google does (RS256 signature
// with the service account's public key, `iss` the account's email, `aud` its own URL, an hour's
// validity, and the scopes it was told to expect), and answers with the next token the test gives
// it. Every request is recorded, accepted or not, so a test can count exchanges and read the scopes.
import { generateKeyPairSync, type KeyObject, randomBytes, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export interface ServiceAccount {
  clientEmail: string;
  publicKey: KeyObject;
  /** The PEM private key, so a test can check it appears in no message. */
  privateKeyPem: string;
}

/** A service account with a fresh RSA key. */
export function newServiceAccount(name = 'deployer'): ServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    clientEmail: `${name}@orch-agent-test.iam.gserviceaccount.com`,
    publicKey,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Writes the account's key file, as `gcloud iam service-accounts keys create` does; returns its path. */
export function writeKeyFile(dir: string, account: ServiceAccount, tokenUri: string): string {
  const file = join(dir, `${account.clientEmail.split('@')[0]}-key.json`);
  const key = {
    type: 'service_account',
    project_id: 'orch-agent-test',
    private_key_id: randomBytes(20).toString('hex'),
    private_key: account.privateKeyPem,
    client_email: account.clientEmail,
    client_id: '1234567890',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
  };
  writeFileSync(file, JSON.stringify(key, null, 2), { mode: 0o600 });
  return file;
}

export interface TokenExchange {
  /** What the endpoint found wrong, or undefined when it issued a token. */
  refused?: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** The form's fields, assertion included. */
  form: Record<string, string>;
  /** The access token answered. */
  token?: string;
}

export interface IssuedToken {
  access_token: string;
  expires_in: number;
}

export interface TokenEndpointOptions {
  key: Pick<ServiceAccount, 'clientEmail' | 'publicKey'>;
  /** The scopes an assertion must ask for, exactly; others get 400 invalid_scope. */
  scopes: readonly string[];
  /** The token for each accepted exchange, in turn. */
  issue: () => IssuedToken | Promise<IssuedToken>;
  /** The endpoint's clock, milliseconds (Date.now by default): share a test's clock to move time. */
  now?: () => number;
}

export interface TokenEndpoint {
  /** The token_uri: `http://127.0.0.1:<port>/token`. */
  readonly url: string;
  readonly exchanges: TokenExchange[];
  /** Answer every request with this status and body instead (a failing endpoint). */
  failWith(status: number, body: unknown): void;
  close(): Promise<void>;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const decode = (part: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString());
    return typeof value === 'object' && value !== null ? { ...value } : {};
  } catch {
    return {};
  }
};

/** What Google would find wrong with the assertion, or undefined. */
function checkAssertion(options: TokenEndpointOptions, url: string, form: Record<string, string>) {
  const [head = '', body = '', signature = ''] = (form.assertion ?? '').split('.');
  const header = decode(head);
  const claims = decode(body);
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    options.key.publicKey,
    Buffer.from(signature, 'base64url'),
  );
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const problem =
    form.grant_type !== JWT_BEARER
      ? ['unsupported_grant_type', `grant_type ${form.grant_type}`]
      : header.alg !== 'RS256' || !signed
        ? ['invalid_grant', 'Invalid JWT Signature.']
        : claims.iss !== options.key.clientEmail
          ? ['invalid_grant', `iss ${String(claims.iss)}`]
          : claims.aud !== url
            ? ['invalid_grant', `Invalid JWT: aud ${String(claims.aud)}`]
            : typeof claims.iat !== 'number' ||
                Math.abs(claims.iat - now) > 60 ||
                claims.exp !== claims.iat + 3600
              ? ['invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes)']
              : claims.scope !== options.scopes.join(' ')
                ? [
                    'invalid_scope',
                    `Invalid OAuth scope or ID token audience provided: ${String(claims.scope)}`,
                  ]
                : undefined;
  return { header, claims, problem };
}

export async function startTokenEndpoint(options: TokenEndpointOptions): Promise<TokenEndpoint> {
  const exchanges: TokenExchange[] = [];
  let failure: { status: number; body: unknown } | undefined;
  let url = '';
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const form = Object.fromEntries(new URLSearchParams(text));
      const { header, claims, problem } = checkAssertion(options, url, form);
      if (failure !== undefined) {
        exchanges.push({ refused: `failing with ${failure.status}`, header, claims, form });
        return answer(failure.status, failure.body);
      }
      if (request.method !== 'POST' || request.url !== '/token') {
        exchanges.push({ refused: `${request.method} ${request.url}`, header, claims, form });
        return answer(404, { error: 'not_found' });
      }
      if (problem !== undefined) {
        exchanges.push({ refused: problem.join(': '), header, claims, form });
        answer(400, { error: problem[0], error_description: problem[1] });
        return;
      }
      Promise.resolve(options.issue()).then(
        (issued) => {
          exchanges.push({ header, claims, form, token: issued.access_token });
          answer(200, { ...issued, token_type: 'Bearer' });
        },
        (error: unknown) => {
          exchanges.push({ refused: `cannot issue: ${String(error)}`, header, claims, form });
          answer(500, { error: 'internal_failure' });
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('token endpoint: no TCP address');
  url = `http://127.0.0.1:${address.port}/token`;
  return {
    url,
    exchanges,
    failWith(status, body) {
      failure = { status, body };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
