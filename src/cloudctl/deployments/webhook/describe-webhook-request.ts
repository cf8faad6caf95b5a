// One line describing a rendered webhook request, for logs and deployment state: method, URL,
// header names and body size. Secret references are never resolved here, and values that carry
// credentials (user:password in the URL, headers and query parameters whose names say auth, token,
// key, secret, password, cookie or signature) are replaced, because a plain-text Authorization
// header is as secret as a referenced one. The body is not shown: it is the job's business and may
// carry anything.
import type { RenderedWebhookRequest } from './render-webhook-request.ts';

export const REDACTED = '<redacted>';
const SENSITIVE = /auth|token|secret|password|passwd|api[-_]?key|cookie|signature|credential/i;

function safeUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return REDACTED;
  }
  if (url.username !== '' || url.password !== '') {
    url.username = 'redacted';
    url.password = '';
  }
  for (const name of [...url.searchParams.keys()])
    if (SENSITIVE.test(name)) url.searchParams.set(name, REDACTED);
  return url.toString();
}

export function describeWebhookRequest(request: RenderedWebhookRequest): string {
  const headers = request.headers.map((h) => {
    if ('secretReference' in h) return `${h.key}: <secret>`;
    return `${h.key}: ${SENSITIVE.test(h.key) ? REDACTED : h.value}`;
  });
  const body = request.body === undefined ? 'no body' : `body ${Buffer.byteLength(request.body)} bytes`;
  return `webhook '${request.webhook}': ${request.method} ${safeUrl(request.url)} (${[
    headers.length === 0 ? 'no headers' : `headers ${headers.join(', ')}`,
    body,
  ].join('; ')})`;
}
