// The status page's CSRF check on its forms (sign in, sign out, a view's forms) and on the JSON the
// applications view posts to its copy of the API (page-api.ts), beside the SameSite=Strict cookie:
// a POST is taken only when the browser says it comes from a page of this very host. The Origin's
// host is compared with the Host header rather than a configured URL, so it holds behind a proxy
// that ends TLS and keeps Host; a request with neither Origin nor Sec-Fetch-Site is refused (every
// browser that can run the page sends one of them; other tools use the API with a bearer token).
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../http/index.ts';

export function isSameOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  if (origin !== undefined && origin !== 'null') {
    try {
      return new URL(origin).host === headers.host;
    } catch {
      return false;
    }
  }
  return headers['sec-fetch-site'] === 'same-origin';
}

/** Refuses (403) a request that does not come from a page of this host. */
export function requireSameOrigin(headers: IncomingHttpHeaders): void {
  if (!isSameOrigin(headers))
    throw new HttpError(
      'FORBIDDEN',
      'this request was sent from another site; open the status page and send it from there',
    );
}
