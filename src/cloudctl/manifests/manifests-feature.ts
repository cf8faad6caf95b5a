// The manifests feature's factory: clouddriver's manifest reads (ManifestController) over the cache,
// the read model and the account's agent, and a pod's published properties (its PodController). It
// owns no table: it reads what caching and the read model store, and asks the agent what they do not
// hold.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { type ManifestRouteDeps, manifestRoutes } from './manifest-routes.ts';
import { podFileRoutes } from './pod-file-routes.ts';

export interface ManifestsFeatureDeps extends Pick<ManifestRouteDeps, 'guard' | 'operations'> {
  stores: Pick<ManifestRouteDeps, 'cache' | 'kinds'> & { readModel: ManifestRouteDeps['model'] };
}

export interface ManifestsFeature extends Feature {
  routes: Route[];
}

export function manifestsFeature(deps: ManifestsFeatureDeps): ManifestsFeature {
  const { stores, guard, operations } = deps;
  const { cache, kinds, readModel: model } = stores;
  return {
    name: 'manifests',
    phase: 'services',
    routes: [
      ...manifestRoutes({ cache, kinds, model, guard, operations }),
      ...podFileRoutes({ guard, operations }),
    ],
  };
}
