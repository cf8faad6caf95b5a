// The status page feature's factory: the web UI's routes, one page per registered view. It reads
// through the other features' stores and services and holds nothing open itself.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { statusPageRoutes } from './status-page-routes.ts';
import type { StatusPageDeps } from './status-sources.ts';

/** What the page takes, with the deployments and plans features given whole: it uses one part of each. */
export type StatusPageFeatureDeps = Omit<StatusPageDeps, 'deploymentRunner' | 'plans'> & {
  deployments: { runner: StatusPageDeps['deploymentRunner'] };
  plans: { checked: StatusPageDeps['plans'] };
};

export interface StatusPageFeature extends Feature {
  routes: Route[];
}

export function statusPageFeature({ deployments, plans, ...deps }: StatusPageFeatureDeps): StatusPageFeature {
  const routes = statusPageRoutes({ ...deps, deploymentRunner: deployments.runner, plans: plans.checked });
  return { name: 'status-page', phase: 'services', routes };
}
