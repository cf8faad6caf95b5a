// The documents the status page sends: a view's page (navigation, sections, the live-update script),
// the sign-in page, the refusal page and the error page. Every page loads only /status/assets/*
// from cloudctl itself; the Content-Security-Policy forbids anything else, inline script included.
import type { Principal } from '../auth/index.ts';
import { html, type SafeHtml } from './safe-html.ts';
import { STATUS_PATH } from './session-cookie.ts';
import type { Section } from './status-view.ts';

/** How often an open page asks for its sections again. */
export const REFRESH_MS = 2000;

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export const HTML_TYPE = 'text/html; charset=utf-8';

export interface NavItem {
  label: string;
  href: string;
}

/** `script`: the asset the page runs (status.js asks for its sections; applications.js follows /watch). */
function document(title: string, body: SafeHtml, script?: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · cloudctl</title>
<link rel="stylesheet" href="${STATUS_PATH}/assets/status.css">
${script === undefined ? '' : html`<script src="${STATUS_PATH}/assets/${script}" defer></script>`}
</head>
<body>
${body}
</body>
</html>
`.text;
}

export function renderSection(section: Section): SafeHtml {
  return html`<section data-section="${section.id}" aria-labelledby="h-${section.id}">
<h2 id="h-${section.id}">${section.title}</h2>
<div class="section-body">${section.body}</div>
</section>`;
}

export function viewPage(
  title: string,
  sections: readonly Section[],
  nav: readonly NavItem[],
  path: string,
  user: Principal,
  /** The page's GET /watch URL: it follows that feed instead of asking for its sections again. */
  watch?: string,
  /** false: a form's answer (a secret shown once), which nothing asks for again. */
  live = true,
): string {
  const links = nav.map(
    (item) =>
      html`<a href="${item.href}"${path === item.href || path.startsWith(`${item.href}/`) ? html` aria-current="page"` : ''}>${item.label}</a>`,
  );
  const body = html`<header class="top">
<span class="brand">cloudctl</span>
<nav>${links}</nav>
${!live ? '' : watch === undefined ? html`<span id="live-state" class="live" aria-live="polite">live</span>` : html`<span id="live-state" class="live" aria-live="polite" data-feed="connecting">connecting…</span>`}
<span class="user" title="signed in as">${user.name}</span>
<form method="post" action="${STATUS_PATH}/logout"><button type="submit">Sign out</button></form>
</header>
<main ${!live ? '' : watch === undefined ? html`data-refresh-ms="${REFRESH_MS}"` : html`data-watch="${watch}"`}>
<h1>${title}</h1>
${sections.map(renderSection)}
</main>`;
  return document(title, body, !live ? undefined : watch === undefined ? 'status.js' : 'applications.js');
}

/** A safe place to return to after signing in: a status page path, never another site. */
export function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/status(\/[\w.~%-]+)*\/?$/.test(next) ? next : STATUS_PATH;
}

/** The sign-in page; with `provider`, it also offers signing in at the OpenID Connect provider. */
export function loginPage(message: string | undefined, next: string, provider = false): string {
  const atProvider = html`<p><a class="button" href="${STATUS_PATH}/oidc/login?next=${encodeURIComponent(next)}">Sign in with your identity provider</a></p>
<p>Or paste an API token:</p>`;
  const body = html`<main class="narrow">
<h1>cloudctl status</h1>
${provider ? atProvider : ''}
<p>Sign in with your cloudctl API token: the same token you send as <code>Authorization: Bearer …</code>.
It is kept in a cookie of this browser for this page only, until you sign out or close the browser.</p>
${message === undefined ? '' : html`<p class="notice" role="alert">${message}</p>`}
<form method="post" action="${STATUS_PATH}/login" class="login">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<input type="hidden" name="next" value="${next}">
<button type="submit">Sign in</button>
</form>
</main>`;
  return document('Sign in', body);
}

/** After the provider's callback: the page moves on (Refresh header) to where sign-in was asked for. */
export function continuePage(next: string): string {
  const body = html`<main class="narrow">
<h1>Signed in</h1>
<p><a href="${next}">Continue to the status page</a></p>
</main>`;
  return document('Signed in', body);
}

export function refusalPage(message: string): string {
  const body = html`<main class="narrow">
<h1>Not allowed</h1>
<p class="notice" role="alert">${message}</p>
<p>Your token does not give you this. Ask an administrator for the role, or
<a href="${STATUS_PATH}/login">sign in with another token</a>. <a href="${STATUS_PATH}">Back to the status page</a></p>
</main>`;
  return document('Not allowed', body);
}

/** A heading in words for the statuses a page or a form answers most. */
const ERROR_HEADINGS: Readonly<Record<number, string>> = {
  404: 'Not found',
  409: 'Not done: it conflicts with how things are now',
  410: 'Not done: it has expired',
};

/** `back`: the page a refused form was posted from, offered as the way back. */
export function errorPage(status: number, message: string, back?: string): string {
  const heading = ERROR_HEADINGS[status] ?? `Error ${status}`;
  const body = html`<main class="narrow">
<h1>${heading}</h1>
<p class="notice" role="alert">${message}</p>
<p>${back === undefined ? '' : html`<a href="${back}" data-back>Back to the page you came from</a> · `}<a href="${STATUS_PATH}">Back to the status page</a></p>
</main>`;
  return document(status === 404 ? 'Not found' : 'Error', body);
}
