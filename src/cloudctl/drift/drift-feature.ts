// The drift feature's factory: re-apply (POST /manifests/.../reapply) over what cloudctl deployed and
// the Planner. The rest of drift lives where its data flows: the agent's watch summarises it, caching
// stores it with each object, /manifests and /watch answer it (in this folder's words), and tasks
// record what each deploy applied through the DeployRecords port this folder's store fills.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { type ReapplyRouteDeps, reapplyRoute } from './reapply-route.ts';

export interface DriftFeatureDeps {
  stores: { deployed: ReapplyRouteDeps['deployed']; kinds: ReapplyRouteDeps['kinds'] };
  planner: ReapplyRouteDeps['planner'];
  guard: ReapplyRouteDeps['guard'];
}

export interface DriftFeature extends Feature {
  routes: Route[];
}

export function driftFeature(deps: DriftFeatureDeps): DriftFeature {
  const { stores, planner, guard } = deps;
  return {
    name: 'drift',
    phase: 'services',
    routes: [reapplyRoute({ deployed: stores.deployed, kinds: stores.kinds, planner, guard })],
  };
}
