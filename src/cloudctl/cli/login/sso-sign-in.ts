// `cloudctl login SERVER --sso`: the authorization-code flow with PKCE (RFC 7636) and a loopback
// redirect (RFC 8252), as `argocd login --sso` does it. cloudctl says which provider and public
// client to use (GET /auth/cli); the CLI reads the provider's discovery document itself, since it is
// the CLI and the person's browser, not cloudctl, that talk to the provider. It prints the URL to
// open (and tries the system's opener), waits for the provider to send the browser back to
// 127.0.0.1, trades the code and the verifier for an access token (the JWT cloudctl's OIDC
// authenticator takes as a bearer), and returns it. No secret is involved: the verifier, known only
// to this process, is what makes a stolen code worthless. The token is never printed.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type ApiClient, CliError, unreachable } from '../client/index.ts';
import { listenForCallback } from './loopback-callback.ts';

/** What GET /auth/cli answers (src/cloudctl/oauth/cli-sign-in-route.ts), the fields read here. */
const cliSignInSchema = z.looseObject({
  issuer: z.string(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  audience: z.string(),
});
type CliSignIn = z.infer<typeof cliSignInSchema>;

const discoverySchema = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
});
type Discovery = z.infer<typeof discoverySchema>;

const tokenAnswerSchema = z.looseObject({ access_token: z.string().min(1) });

export interface SsoDeps {
  /** Prints a line for the person (stderr: stdout is the command's result). */
  say: (text: string) => void;
  /** Tries to open the URL in a browser; may do nothing. */
  open: (url: string) => void;
  /** Ends the wait (Ctrl-C, or the timeout). */
  signal: AbortSignal;
}

/** Signs the person in at cloudctl's provider; the access token. */
export async function signInWithSso(client: ApiClient, deps: SsoDeps): Promise<string> {
  const settings = await cliSignIn(client);
  const discovery = await discover(settings.issuer);
  const state = random();
  const verifier = random();
  const callback = await listenForCallback(state);
  try {
    const url = new URL(discovery.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: settings.clientId,
      redirect_uri: callback.redirectUri,
      scope: settings.scopes.join(' '),
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      // Providers that issue access tokens per API (Hydra, Auth0) take the API's audience here.
      audience: settings.audience,
    };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    deps.say(`Open this URL in a browser to sign in at ${settings.issuer}:\n\n  ${url}\n`);
    deps.open(url.toString());
    deps.say(`Waiting for the provider to send the browser back to ${callback.redirectUri} ...`);
    const code = await untilAborted(callback.code, deps.signal);
    return await exchange(discovery, settings, { code, verifier, redirectUri: callback.redirectUri });
  } finally {
    callback.close();
  }
}

async function cliSignIn(client: ApiClient): Promise<CliSignIn> {
  const answer = await client.send('GET', '/auth/cli');
  // An older cloudctl has no such route: to the person it is the same, no sign-in to offer.
  if (answer.status === 404)
    throw new CliError(
      'SIGN_IN',
      `${client.server}: this cloudctl has no OIDC sign-in configured (auth.oidc.cli); log in with --token`,
    );
  if (answer.status !== 200) throw client.failure('GET', '/auth/cli', answer);
  const parsed = cliSignInSchema.safeParse(answer.json);
  if (!parsed.success)
    throw new CliError(
      'REQUEST_FAILED',
      `GET ${client.server}/auth/cli answered what cloudctl's API does not`,
    );
  return parsed.data;
}

async function discover(issuer: string): Promise<Discovery> {
  // The issuer may have a path; discovery appends to it (OpenID Connect Discovery 1.0, section 4).
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url).catch((error: unknown) => {
    throw unreachable(issuer, error);
  });
  const parsed = discoverySchema.safeParse(await response.json().catch(() => undefined));
  if (!response.ok || !parsed.success)
    throw new CliError(
      'SIGN_IN',
      `${url} is not the provider's discovery document (HTTP ${response.status})`,
    );
  // The document must name the issuer it was read from, or another party could stand in for it.
  if (parsed.data.issuer !== issuer)
    throw new CliError('SIGN_IN', `${url} names issuer ${parsed.data.issuer}, not ${issuer}`);
  return parsed.data;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () =>
      reject(
        new CliError(
          'SIGN_IN',
          'the sign-in was not completed: stopped waiting (Ctrl-C, or 5 minutes passed)',
        ),
      );
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** The code and the verifier traded for the access token; a refusal names the provider's error only. */
async function exchange(
  discovery: Discovery,
  settings: CliSignIn,
  grant: { code: string; verifier: string; redirectUri: string },
): Promise<string> {
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      client_id: settings.clientId,
      code_verifier: grant.verifier,
    }),
  }).catch((error: unknown) => {
    throw unreachable(discovery.token_endpoint, error);
  });
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = tokenAnswerSchema.safeParse(body);
  if (response.ok && parsed.success) return parsed.data.access_token;
  const error = z.looseObject({ error: z.string() }).safeParse(body);
  throw new CliError(
    'SIGN_IN',
    `the provider gave no access token (${error.success ? error.data.error : `HTTP ${response.status}`})`,
  );
}

function random(): string {
  return randomBytes(32).toString('base64url');
}
