// The few API routes the applications view's script calls, mounted again under /status/api with the
// status page's sign-in: the session cookie is scoped to /status (session-cookie.ts), so the API
// itself never takes it, and a page cannot reach /watch or POST /ops with a bearer header it does
// not hold. Each copy is the API's own route (its schemas, permission checks and handler), so the
// page runs actions "through the same API": an action refused there is refused here. A copy that
// changes something (POST) also refuses a request from another site, as the page's forms do; it
// takes JSON only (the route's own media types), which no cross-site form can send without CORS.
import type { Route } from '../http/index.ts';
import { requireSameOrigin } from './same-origin.ts';
import { STATUS_PATH, statusAuthorization } from './session-cookie.ts';

export const PAGE_API_PATH = `${STATUS_PATH}/api`;

/** The routes the page calls, as `METHOD url`: its live feed, its actions and the pieces it fetches. */
export const PAGE_API_ROUTES: readonly string[] = [
  'GET /watch',
  'POST /ops',
  'GET /task/:id',
  'GET /manifests/:account/:location/:name',
  'POST /manifests/:account/:location/:name/reapply',
  'GET /instances/:account/:region/:id/console',
  'GET /applications/:application/serverGroups/:account/:region/:name',
];

function pageCopy(route: Route): Route {
  return {
    ...route,
    url: `${PAGE_API_PATH}${route.url}`,
    summary: `Status page: ${route.summary}`,
    hidden: true,
    authorization: statusAuthorization,
    handler:
      route.method === 'GET'
        ? route.handler
        : async (request) => {
            requireSameOrigin(request.headers);
            return route.handler(request);
          },
  };
}

/** The routes with the page's copies of PAGE_API_ROUTES added (those of them the routes have). */
export function withPageApi(routes: readonly Route[]): Route[] {
  const wanted = new Set(PAGE_API_ROUTES);
  return [...routes, ...routes.filter((r) => wanted.has(`${r.method} ${r.url}`)).map(pageCopy)];
}
