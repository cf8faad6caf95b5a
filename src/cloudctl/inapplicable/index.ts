// Endpoints of the API we mirror that have no meaning for an orchestrator.
export { type InapplicableFeature, inapplicableFeature } from './inapplicable-feature.ts';
