// The read model: Spinnaker's Kubernetes-provider view of the cache (applications, clusters, server
// groups, load balancers, instances, security groups, raw resources, search), derived at ingest
// into read_objects and answered over HTTP from that index alone. docs/read-model.md has the mapping.
export { jobProperties } from './job-properties.ts';
export {
  indexObject,
  MONIKER,
  type ObjectIndex,
  type ObjectSummary,
  objectSummarySchema,
  RECOMMENDED_NAME_LABEL,
  type Role,
  selects,
} from './object-mapping.ts';
export {
  type ContainerMetric,
  containerMetricSchema,
  containerMetrics,
  type PodUsage,
  podContainerMetrics,
  podMetricsKey,
  podUsage,
} from './pod-metrics.ts';
export { ReadIndex } from './read-index.ts';
export { type IndexedObject, ReadModel } from './read-model.ts';
export { type ReadModelFeature, type ReadModelFeatureDeps, readModelFeature } from './read-model-feature.ts';
export { type ReadModelTables, readModelMigration } from './read-model-tables.ts';
export { readableApplication, SERVER_GROUP_PARTS } from './readable-application.ts';
export { type Cluster, type Instance, monikerSchema, type ServerGroup } from './records.ts';
export type { ReadRouteDeps } from './route-deps.ts';
export { type ApplicationView, clusterKeys, clusterOf } from './views.ts';
