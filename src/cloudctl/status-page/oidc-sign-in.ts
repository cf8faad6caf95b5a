// The status page's sign-in at the OpenID Connect provider: the authorization-code flow with PKCE
// (RFC 7636). /status/oidc/login sends the browser to the provider with a fresh state and code
// challenge, and keeps state, verifier and the page to return to in a short-lived cookie that only the
// callback gets (SameSite=Lax: the callback is a top-level navigation from the provider's site, on
// which a Strict cookie would not come). /status/oidc/callback checks the state, trades the code and
// the verifier for an access token at the token endpoint, and keeps the token in the very session
// cookie a pasted token goes in: the same authenticator judges it on every page, sign-out forgets
// it, and cloudctl keeps no session state. The continue page then moves on by itself, since a
// SameSite=Strict cookie set during a navigation that began at another site is not sent on its
// redirects.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { OidcProvider } from '../auth/index.ts';
import { defineRoute, Reply, type Route } from '../http/index.ts';
import { continuePage, HTML_TYPE, loginPage, PAGE_HEADERS, safeNext } from './layout.ts';
import { STATUS_PATH, sessionCookie } from './session-cookie.ts';

export const OIDC_LOGIN_PATH = `${STATUS_PATH}/oidc/login`;
const CALLBACK_PATH = `${STATUS_PATH}/oidc/callback`;
const FLOW_COOKIE = 'cloudctl-status-oidc';
/** How long a browser may stay at the provider before the callback no longer takes it back. */
const FLOW_SECONDS = 600;
const TAG = 'status-page';

const tokenAnswerSchema = z.object({ access_token: z.string().min(1) });

interface Flow {
  state: string;
  verifier: string;
  next: string;
}

function flowCookie(flow: Flow, secure: boolean): string {
  const value = [flow.state, flow.verifier, Buffer.from(flow.next).toString('base64url')].join('.');
  return `${FLOW_COOKIE}=${value}; Path=${STATUS_PATH}/oidc; Max-Age=${FLOW_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

function flowOf(cookieHeader: string | undefined): Flow | undefined {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const [name, value = ''] = pair.trim().split('=');
    if (name !== FLOW_COOKIE) continue;
    const [state, verifier, next] = value.split('.');
    if (state === undefined || verifier === undefined || next === undefined) return undefined;
    return { state, verifier, next: safeNext(Buffer.from(next, 'base64url').toString()) };
  }
  return undefined;
}

function signInAgain(status: number, message: string, next = STATUS_PATH): Reply {
  return new Reply(status, loginPage(message, next), HTML_TYPE, PAGE_HEADERS);
}

type StatusPageClient = NonNullable<OidcProvider['settings']['statusPage']>;

const htmlAnswer = z.string().describe('an HTML page');

/** The two routes, when `auth.oidc.statusPage` is configured. */
export function oidcSignInRoutes(provider: OidcProvider): Route[] {
  const client = provider.settings.statusPage;
  return client === undefined ? [] : [loginRoute(provider, client), callbackRoute(provider, client)];
}

/** Sends the browser to the provider, with the state and verifier kept for the callback. */
function loginRoute(provider: OidcProvider, client: StatusPageClient): Route {
  return defineRoute({
    method: 'GET',
    url: OIDC_LOGIN_PATH,
    summary: 'Status page: sign in at the OpenID Connect provider',
    tag: TAG,
    hidden: true,
    access: 'public',
    schema: {
      querystring: z.object({ next: z.string().optional() }),
      response: { 303: z.void().describe('See Other: the provider'), 503: htmlAnswer },
    },
    handler: async ({ query, secure }) => {
      const next = safeNext(query.next);
      const discovery = await provider.discovery().catch((error: unknown) => String(error));
      if (typeof discovery === 'string') {
        return signInAgain(503, `the sign-in provider cannot be reached: ${discovery}`, next);
      }
      const flow = { state: random(), verifier: random(), next };
      const target = new URL(discovery.authorization_endpoint);
      const params = {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUrl,
        scope: client.scopes.join(' '),
        state: flow.state,
        code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
        code_challenge_method: 'S256',
        // Providers that issue access tokens per API (Hydra, Auth0) take the API's audience here.
        audience: provider.settings.audience,
      };
      for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
      return new Reply(303, '', 'text/plain; charset=utf-8', {
        location: target.toString(),
        'cache-control': 'no-store',
        'set-cookie': flowCookie(flow, secure),
      });
    },
  });
}

/** Takes the browser back: the state checked, the code traded, the token kept in the session cookie. */
function callbackRoute(provider: OidcProvider, client: StatusPageClient): Route {
  return defineRoute({
    method: 'GET',
    url: CALLBACK_PATH,
    summary: 'Status page: the provider sends the browser back here with a code',
    tag: TAG,
    hidden: true,
    access: 'public',
    schema: {
      querystring: z.object({
        code: z.string().optional(),
        state: z.string().optional(),
        error: z.string().optional(),
        error_description: z.string().optional(),
      }),
      response: { 200: htmlAnswer, 400: htmlAnswer, 401: htmlAnswer, 502: htmlAnswer },
    },
    handler: async ({ query, headers, secure }) => {
      const flow = flowOf(headers.cookie);
      if (flow === undefined || query.state === undefined || query.state !== flow.state) {
        return signInAgain(
          400,
          'this sign-in was not started in this browser, or took longer than 10 minutes: sign in again',
        );
      }
      if (query.error !== undefined || query.code === undefined) {
        const why = query.error_description ?? query.error ?? 'no code';
        return signInAgain(401, `the provider did not sign you in: ${why}`, flow.next);
      }
      const token = await exchange(provider, client, query.code, flow.verifier);
      if (!token.ok) return signInAgain(502, token.reason, flow.next);
      return new Reply(200, continuePage(flow.next), HTML_TYPE, {
        ...PAGE_HEADERS,
        refresh: `0; url=${flow.next}`,
        'set-cookie': sessionCookie(token.accessToken, secure),
      });
    },
  });
}

function random(): string {
  return randomBytes(32).toString('base64url');
}

/** The code and the verifier traded for an access token; the reason names no secret. */
async function exchange(
  provider: OidcProvider,
  client: StatusPageClient,
  code: string,
  verifier: string,
): Promise<{ ok: true; accessToken: string } | { ok: false; reason: string }> {
  const discovery = await provider.discovery().catch((error: unknown) => String(error));
  if (typeof discovery === 'string') return { ok: false, reason: `the sign-in provider: ${discovery}` };
  const endpoint = discovery.token_endpoint;
  if (endpoint === undefined) {
    return { ok: false, reason: 'the sign-in provider has no token endpoint' };
  }
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUrl,
    client_id: client.clientId,
    code_verifier: verifier,
    ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
  });
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form,
    signal: AbortSignal.timeout(provider.settings.timeoutSeconds * 1000),
  }).catch((error: unknown) => String(error));
  if (typeof response === 'string') return { ok: false, reason: `the token endpoint failed: ${response}` };
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = tokenAnswerSchema.safeParse(body);
  if (!response.ok || !parsed.success) {
    const error = z.object({ error: z.string() }).safeParse(body);
    const why = error.success ? error.data.error : `HTTP ${response.status}`;
    return { ok: false, reason: `the provider gave no access token (${why}): sign in again` };
  }
  return { ok: true, accessToken: parsed.data.access_token };
}
