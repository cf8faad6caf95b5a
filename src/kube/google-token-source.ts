// Google OAuth 2.0 access tokens for a service account, with the scopes the account asks for
// (`orchestrator.accounts[].oAuthScopes`): a JWT signed RS256 with the service account's key (`iss`
// its email, `scope` the scopes space-separated, `aud` the key file's token_uri, valid one hour) is
// exchanged at token_uri (RFC 7523 jwt-bearer grant), and the access token it answers is the bearer
// token of every request to the cluster. The token is kept until shortly before it expires, so one
// exchange serves an hour of requests; concurrent requests share one exchange. Messages name the
// token endpoint, the service account and the scopes, never the key, the assertion or a token.
import { sign } from 'node:crypto';
import { type Dispatcher, fetch } from 'undici';
import { z } from 'zod';
import { CodedError } from '../lib/coded-error.ts';
import { errorCode, isRecord } from '../lib/is-record.ts';
import type { GoogleServiceAccountKey } from './google-service-account-key.ts';

/**
 * What client-go's gcp auth provider and GKE's gke-gcloud-auth-plugin ask for when nothing says
 * otherwise: cloud-platform to reach Google APIs, userinfo.email so GKE sees the service account's
 * email (which RBAC bindings name) rather than its numeric id.
 */
export const GOOGLE_DEFAULT_SCOPES: readonly string[] = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
];

/** Supplies the bearer token of each request to a cluster. */
export interface BearerTokenSource {
  token(): Promise<string>;
}

export class GoogleTokenError extends CodedError<'GOOGLE_TOKEN_FAILED'> {
  constructor(message: string, options?: ErrorOptions) {
    super('GOOGLE_TOKEN_FAILED', message, options);
  }
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google accepts assertions valid for at most an hour. */
const ASSERTION_SECONDS = 3600;
/** A token is replaced this long before it expires, so no request goes out with one about to lapse. */
const REFRESH_MARGIN_SECONDS = 300;
/** After a failed refresh while the old token still holds, the next try waits this long. */
const RETRY_AFTER_FAILURE_MS = 10_000;
const EXCHANGE_TIMEOUT_MS = 30_000;

const TOKEN_ANSWER = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive(),
  token_type: z.string().regex(/^bearer$/i, 'expected Bearer'),
});

export interface GoogleTokenSourceOptions {
  key: GoogleServiceAccountKey;
  scopes: readonly string[];
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** How to reach token_uri (a proxy); undici's global dispatcher by default. */
  dispatcher?: Dispatcher;
}

interface HeldToken {
  token: string;
  refreshAt: number;
  expiresAt: number;
}

export class GoogleTokenSource implements BearerTokenSource {
  readonly #options: GoogleTokenSourceOptions;
  readonly #now: () => number;
  #held: HeldToken | undefined;
  #exchange: Promise<string> | undefined;

  constructor(options: GoogleTokenSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Where tokens come from, for messages: the endpoint and the service account, no secret. */
  get description(): string {
    return `${this.#options.key.clientEmail} at ${this.#options.key.tokenUri}`;
  }

  token(): Promise<string> {
    const held = this.#held;
    if (held !== undefined && this.#now() < held.refreshAt) return Promise.resolve(held.token);
    this.#exchange ??= this.#refresh().finally(() => {
      this.#exchange = undefined;
    });
    return this.#exchange;
  }

  async #refresh(): Promise<string> {
    try {
      const answer = await this.#requestToken();
      const now = this.#now();
      // Refresh five minutes before expiry, or half-way for tokens that live less than ten minutes,
      // so a short-lived token is not exchanged again on every request.
      const lifetime = answer.expires_in;
      const refreshIn = Math.max(lifetime - REFRESH_MARGIN_SECONDS, lifetime / 2);
      this.#held = {
        token: answer.access_token,
        refreshAt: now + refreshIn * 1000,
        expiresAt: now + lifetime * 1000,
      };
      return answer.access_token;
    } catch (error) {
      // A token that has not expired yet still works: use it, and try again a little later, so a
      // token endpoint's brief outage does not fail requests that need not fail.
      const held = this.#held;
      if (held !== undefined && this.#now() < held.expiresAt) {
        held.refreshAt = Math.min(held.expiresAt, this.#now() + RETRY_AFTER_FAILURE_MS);
        return held.token;
      }
      throw error;
    }
  }

  #assertion(): string {
    const { key, scopes } = this.#options;
    const issuedAt = Math.floor(this.#now() / 1000);
    const header = { alg: 'RS256', typ: 'JWT', ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) };
    const claims = {
      iss: key.clientEmail,
      scope: scopes.join(' '),
      aud: key.tokenUri,
      iat: issuedAt,
      exp: issuedAt + ASSERTION_SECONDS,
    };
    const signed = `${base64url(header)}.${base64url(claims)}`;
    return `${signed}.${sign('sha256', Buffer.from(signed), key.privateKey).toString('base64url')}`;
  }

  async #requestToken(): Promise<z.infer<typeof TOKEN_ANSWER>> {
    const { key, scopes, dispatcher } = this.#options;
    const what = `a Google access token for ${key.clientEmail} with scopes [${scopes.join(', ')}]`;
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      response = await fetch(key.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: this.#assertion() }).toString(),
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
        ...(dispatcher === undefined ? {} : { dispatcher }),
      });
    } catch (error) {
      const inner = isRecord(error) && error.cause !== undefined ? error.cause : error;
      throw new GoogleTokenError(
        `cannot reach the token endpoint ${key.tokenUri} for ${what}: ${errorCode(inner)}`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      throw new GoogleTokenError(
        `the token endpoint ${key.tokenUri} refused ${what}: HTTP ${response.status}${refusal(body)}`,
      );
    }
    const parsed = TOKEN_ANSWER.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GoogleTokenError(
        `the token endpoint ${key.tokenUri} answered ${what} without a usable token: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not JSON'}`,
      );
    }
    return parsed.data;
  }
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The OAuth error and its description (RFC 6749 5.2), which say why; never the raw body. */
function refusal(body: unknown): string {
  if (!isRecord(body) || typeof body.error !== 'string') return '';
  const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
  return ` ${body.error}${description}`.slice(0, 400);
}
