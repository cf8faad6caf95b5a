// The status page feature's factory: the web UI's routes, one page per registered view. It reads
// through the other features' stores and services and holds nothing open itself.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { statusPageRoutes } from './status-page-routes.ts';
import type { StatusPageDeps } from './status-sources.ts';

export type StatusPageFeatureDeps = StatusPageDeps;

export interface StatusPageFeature extends Feature {
  routes: Route[];
}

export function statusPageFeature(deps: StatusPageFeatureDeps): StatusPageFeature {
  return { name: 'status-page', phase: 'services', routes: statusPageRoutes(deps) };
}
