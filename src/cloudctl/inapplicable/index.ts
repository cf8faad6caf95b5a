// Endpoints of the API we mirror that have no meaning for an orchestrator.
export { inapplicableRoutes } from './inapplicable-routes.ts';
