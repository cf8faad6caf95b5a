// The status page's session: the token a user pasted on the login page, kept by the browser in an
// HttpOnly, SameSite=Strict cookie whose path is /status, so the browser sends it to the status
// page only and the HTTP API never sees it (the API takes bearer headers alone). The cookie holds
// the token itself: cloudctl keeps no session state, and the same UserAuthenticator judges it.
import type { IncomingHttpHeaders } from 'node:http';

export const SESSION_COOKIE = 'cloudctl-status-token';
export const STATUS_PATH = '/status';

function attributes(secure: boolean): string {
  return `Path=${STATUS_PATH}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Set-Cookie for a signed-in browser; ends with the browser session. */
export function sessionCookie(token: string, secure: boolean): string {
  // Tokens may hold characters a cookie value may not (`;`, `,`, `"`): the value is percent-encoded.
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; ${attributes(secure)}`;
}

/** Set-Cookie that makes the browser forget the token. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${attributes(secure)}`;
}

function cookieToken(header: string | undefined): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(pair.slice(at + 1).trim()) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The credential of a status page request, as an Authorization value: the header when the caller
 * sends one (tools, tests), else the session cookie's token.
 */
export function statusAuthorization(headers: IncomingHttpHeaders): string | undefined {
  if (headers.authorization !== undefined) return headers.authorization;
  const token = cookieToken(headers.cookie);
  return token === undefined ? undefined : `Bearer ${token}`;
}
