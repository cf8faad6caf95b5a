// The read model feature's factory: Spinnaker's read API (applications, clusters, server groups, load
// balancers, instances, jobs, security groups, search, providers), one line per family of routes.
// It owns no loop: the index it reads is written at ingest, by caching.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { applicationRoutes } from './application-routes.ts';
import { clusterRoutes } from './cluster-routes.ts';
import { instanceRoutes } from './instance-routes.ts';
import { jobRoutes } from './job-routes.ts';
import { providerRoutes } from './provider-routes.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { searchRoutes } from './search-routes.ts';
import { securityGroupRoutes } from './security-group-routes.ts';
import { targetRoutes } from './target-routes.ts';

export interface ReadModelFeatureDeps extends Omit<ReadRouteDeps, 'model' | 'cache'> {
  stores: { readModel: ReadRouteDeps['model']; cache: ReadRouteDeps['cache'] };
}

export interface ReadModelFeature extends Feature {
  routes: Route[];
}

export function readModelFeature({ stores, guard, operations }: ReadModelFeatureDeps): ReadModelFeature {
  const deps: ReadRouteDeps = { guard, model: stores.readModel, cache: stores.cache, operations };
  return {
    name: 'read-model',
    phase: 'services',
    routes: [
      ...applicationRoutes(deps),
      ...clusterRoutes(deps),
      ...targetRoutes(deps),
      ...instanceRoutes(deps),
      ...jobRoutes(deps),
      ...securityGroupRoutes(deps),
      ...searchRoutes(deps),
      ...providerRoutes(deps),
    ],
  };
}
