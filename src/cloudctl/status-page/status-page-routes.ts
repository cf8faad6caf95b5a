// The status page's routes: sign in (a pasted token, or at the OIDC provider: oidc-sign-in.ts) and
// out, its two assets, /status, and one page per registered view, each also answering
// `?part=sections` with its sections as JSON for the live-update script, and one POST per form a
// view offers (refused from another site, as sign-in and sign-out are).
// None is in the API document. View pages take the session cookie or a bearer header and refuse
// with pages, not JSON: 401 is the sign-in page, 403 the refusal page.
import { z } from 'zod';
import { NO_CREDENTIAL } from '../auth/index.ts';
import { defineRoute, Reply, type Route } from '../http/index.ts';
import {
  errorPage,
  HTML_TYPE,
  loginPage,
  type NavItem,
  PAGE_HEADERS,
  refusalPage,
  renderSection,
  safeNext,
  viewPage,
} from './layout.ts';
import { oidcSignInRoutes } from './oidc-sign-in.ts';
import { PAGE_API_PATH } from './page-api.ts';
import { requireSameOrigin } from './same-origin.ts';
import { clearedSessionCookie, STATUS_PATH, sessionCookie, statusAuthorization } from './session-cookie.ts';
import { statusAssets } from './status-assets.ts';
import { type StatusPageDeps, statusSources } from './status-sources.ts';
import type { StatusView, ViewAction } from './status-view.ts';
import { VIEWS } from './views/index.ts';

const TAG = 'status-page';
const FORM = 'application/x-www-form-urlencoded';

/**
 * A page refusing or failing a request; `provider`: the sign-in page offers the OIDC provider;
 * `back`: the page a refused form came from, which the error page links to.
 */
function refusal(status: number, message: string, path: string, provider: boolean, back?: string): Reply {
  if (status === 401) {
    // A first visit (no credential at all) is greeted by the form, not by an error; a cookie that no
    // longer signs in is forgotten, so the sign-in page starts clean.
    const notice = message === NO_CREDENTIAL ? undefined : message;
    return new Reply(status, loginPage(notice, safeNext(path), provider), HTML_TYPE, {
      ...PAGE_HEADERS,
      'set-cookie': clearedSessionCookie(false),
    });
  }
  if (status === 403) return new Reply(status, refusalPage(message), HTML_TYPE, PAGE_HEADERS);
  return new Reply(status, errorPage(status, message, back), HTML_TYPE, PAGE_HEADERS);
}

function redirect(location: string, headers: Record<string, string> = {}): Reply {
  return new Reply(303, '', 'text/plain; charset=utf-8', {
    ...headers,
    location,
    'cache-control': 'no-store',
  });
}

/** The page a form was posted from: its path less the action's name. */
function formPage(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

const htmlAnswer = z.string().describe('an HTML page');
const redirectAnswer = z.void().describe('See Other: the page to go to');

export function statusPageRoutes(deps: StatusPageDeps, views: readonly StatusView[] = VIEWS): Route[] {
  const sources = statusSources(deps);
  const provider = deps.oidc?.settings.statusPage !== undefined;
  const refuse = (status: number, message: string, path: string) => refusal(status, message, path, provider);
  const nav: NavItem[] = views.flatMap((v) => (v.nav === undefined ? [] : [{ label: v.nav, href: v.url }]));
  const first = nav[0]?.href ?? STATUS_PATH;
  const pageRoute = (view: StatusView): Route =>
    defineRoute({
      method: 'GET',
      url: view.url,
      summary: `Status page: ${view.nav ?? view.url}`,
      tag: TAG,
      hidden: true,
      access: 'user',
      authorization: statusAuthorization,
      errorBody: refuse,
      schema: {
        ...(view.params === undefined ? {} : { params: view.params }),
        querystring: z.object({
          part: z.literal('sections').optional().describe('sections: the sections as JSON, for live updates'),
        }),
        response: { 200: htmlAnswer },
      },
      handler: async ({ params, query, user, path }) => {
        const watch = query.part === 'sections' ? undefined : view.watch?.(params);
        // The feed starts where the store stood before the page was read: a change stored between the
        // render and the script's connect is sent (one both shown and sent is set again, harmlessly).
        const feedQuery =
          watch === undefined ? undefined : { ...watch, since: String(await sources.store.watch.horizon()) };
        const rendered = await view.render({ user, sources, now: deps.now() }, params);
        if (query.part === 'sections') {
          const sections = Object.fromEntries(rendered.sections.map((s) => [s.id, renderSection(s).text]));
          return new Reply(200, { title: rendered.title, sections }, undefined, {
            'cache-control': 'no-store',
          });
        }
        const feed = feedQuery && `${PAGE_API_PATH}/watch?${new URLSearchParams(feedQuery)}`;
        return new Reply(
          200,
          viewPage(rendered.title, rendered.sections, nav, path, user, feed),
          HTML_TYPE,
          PAGE_HEADERS,
        );
      },
    });

  const actionRoute = (view: StatusView, name: string, action: ViewAction): Route =>
    defineRoute({
      method: 'POST',
      url: `${view.url}/${name}`,
      summary: `Status page: ${name}, a form of ${view.url}`,
      tag: TAG,
      hidden: true,
      access: 'user',
      authorization: statusAuthorization,
      consumes: [FORM],
      errorBody: (status, message, path) =>
        refusal(status, message, formPage(path), provider, formPage(path)),
      schema: {
        ...(view.params === undefined ? {} : { params: view.params }),
        body: action.form,
        response: { 200: htmlAnswer, 303: redirectAnswer },
      },
      handler: async ({ params, body, user, headers, path }) => {
        requireSameOrigin(headers);
        const answer = await action.run({ user, sources, now: deps.now() }, params, body);
        if (answer === undefined) return redirect(formPage(path));
        const page = viewPage(answer.title, answer.sections, nav, formPage(path), user, undefined, false);
        return new Reply(200, page, HTML_TYPE, PAGE_HEADERS);
      },
    });

  return [
    // Where a person's browser lands first, on cloudctl's HTTP port: the page, not a 404.
    defineRoute({
      method: 'GET',
      url: '/',
      summary: 'The root: the status page',
      tag: TAG,
      hidden: true,
      access: 'public',
      schema: { response: { 303: redirectAnswer } },
      handler: async () => redirect(STATUS_PATH),
    }),
    defineRoute({
      method: 'GET',
      url: STATUS_PATH,
      summary: 'Status page: its first view',
      tag: TAG,
      hidden: true,
      access: 'public',
      schema: { response: { 303: redirectAnswer } },
      handler: async () => redirect(first),
    }),
    defineRoute({
      method: 'GET',
      url: `${STATUS_PATH}/login`,
      summary: 'Status page: sign in with an API token',
      tag: TAG,
      hidden: true,
      access: 'public',
      errorBody: refuse,
      schema: {
        querystring: z.object({ next: z.string().optional() }),
        response: { 200: htmlAnswer },
      },
      handler: async ({ query }) =>
        new Reply(200, loginPage(undefined, safeNext(query.next), provider), HTML_TYPE, PAGE_HEADERS),
    }),
    defineRoute({
      method: 'POST',
      url: `${STATUS_PATH}/login`,
      summary: 'Status page: keep the token in a cookie of this browser and go on to the page',
      tag: TAG,
      hidden: true,
      access: 'public',
      consumes: [FORM],
      errorBody: (status, message) =>
        status === 403
          ? refuse(status, message, STATUS_PATH)
          : new Reply(status, loginPage(message, STATUS_PATH, provider), HTML_TYPE, PAGE_HEADERS),
      schema: {
        body: z.object({
          token: z.string().min(1, { error: 'paste your API token' }),
          next: z.string().optional(),
        }),
        response: { 303: redirectAnswer },
      },
      // The token is not checked here: the page it leads to is, by the same authenticator as every
      // request, and answers the sign-in page again, with the reason, when the token is not known.
      handler: async ({ body, headers, secure }) => {
        requireSameOrigin(headers);
        return redirect(safeNext(body.next), { 'set-cookie': sessionCookie(body.token, secure) });
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${STATUS_PATH}/logout`,
      summary: 'Status page: forget the token kept in this browser',
      tag: TAG,
      hidden: true,
      access: 'public',
      consumes: [FORM],
      errorBody: refuse,
      schema: { body: z.unknown(), response: { 303: redirectAnswer } },
      handler: async ({ headers, secure }) => {
        requireSameOrigin(headers);
        return redirect(`${STATUS_PATH}/login`, { 'set-cookie': clearedSessionCookie(secure) });
      },
    }),
    ...(deps.oidc === undefined ? [] : oidcSignInRoutes(deps.oidc)),
    ...statusAssets().map((asset) =>
      defineRoute({
        method: 'GET',
        url: `${STATUS_PATH}/assets/${asset.name}`,
        summary: `Status page: ${asset.name}`,
        tag: TAG,
        hidden: true,
        access: 'public',
        schema: { response: { 200: z.string() } },
        handler: async () =>
          new Reply(200, asset.body, asset.type, {
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
          }),
      }),
    ),
    ...views.map(pageRoute),
    ...views.flatMap((view) =>
      Object.entries(view.actions ?? {}).map(([name, action]) => actionRoute(view, name, action)),
    ),
  ];
}
