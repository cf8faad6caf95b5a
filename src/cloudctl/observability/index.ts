// cloudctl's own health: metrics, and the probe and metrics routes on the HTTP port.
export { type CloudctlMetrics, createCloudctlMetrics } from './cloudctl-metrics.ts';
export {
  type ObservabilityFeature,
  type ObservabilityFeatureDeps,
  observabilityFeature,
} from './observability-feature.ts';
export { observabilityRoutes } from './observability-routes.ts';
