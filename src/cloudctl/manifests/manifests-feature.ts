// The manifests feature's factory: clouddriver's manifest reads (ManifestController) over the cache,
// the read model and the account's agent. It owns no table: it reads what caching and the read model
// store, and asks the agent what they do not hold.
import type { Route } from '../http/index.ts';
import { type ManifestRouteDeps, manifestRoutes } from './manifest-routes.ts';

export type ManifestsFeatureDeps = ManifestRouteDeps;

export interface ManifestsFeature {
  routes: Route[];
}

export function manifestsFeature(deps: ManifestsFeatureDeps): ManifestsFeature {
  return { routes: manifestRoutes(deps) };
}
