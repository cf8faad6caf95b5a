// The inapplicable feature's factory: the endpoints of the API we mirror that mean nothing for an
// orchestrator, answering valid, empty results. It needs nothing and holds nothing.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { inapplicableRoutes } from './inapplicable-routes.ts';

export interface InapplicableFeature extends Feature {
  routes: Route[];
}

export function inapplicableFeature(): InapplicableFeature {
  return { name: 'inapplicable', phase: 'services', routes: inapplicableRoutes() };
}
