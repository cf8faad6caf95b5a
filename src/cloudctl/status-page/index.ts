// The status page: a small web UI of agents, accounts and tasks that cloudctl serves beside its API,
// signed in with an API token, rendered on the server, kept fresh by a script of its own.
export { statusPageRoutes } from './status-page-routes.ts';
export type { StatusPageDeps } from './status-sources.ts';
export { defineView, type StatusView } from './status-view.ts';
