// The status page: a small web UI of agents, accounts and tasks that cloudctl serves beside its API,
// signed in with an API token, rendered on the server, kept fresh by a script of its own.

export { PAGE_API_PATH, PAGE_API_ROUTES, withPageApi } from './page-api.ts';
export {
  type StatusPageFeature,
  type StatusPageFeatureDeps,
  statusPageFeature,
} from './status-page-feature.ts';
export type { StatusPageDeps } from './status-sources.ts';
export { defineView, type StatusView } from './status-view.ts';
