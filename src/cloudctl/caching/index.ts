// The resource cache: what agents stream up (orchagent.v1.Caching), stored and read back; kinds as
// Spinnaker names them; on-demand refresh and introspection over HTTP (the cache controller).
export type { AgentIntrospection, IntrospectionSources } from './cache-introspection.ts';
export { type CacheRouteDeps, cacheRoutes } from './cache-routes.ts';
export {
  type ApplyOutcome,
  type CacheChange,
  type CachedKind,
  type CachedResource,
  type CacheIndexer,
  CacheStore,
  type IndexColumn,
  type IndexValue,
  type ObjectKey,
  type RefreshedObject,
  type ResumeVersion,
  type StoredObject,
  type SyncProgress,
  type WatchScope,
} from './cache-store.ts';
export {
  type CacheTables,
  cacheBodyTextMigration,
  createCacheTables,
  resourceDriftMigration,
} from './cache-tables.ts';
export { type CachingFeature, type CachingFeatureDeps, cachingFeature } from './caching-feature.ts';
export { type CachingRpcDeps, cachingHandlers } from './caching-rpc.ts';
export { IngestRate, type IngestRateOptions } from './ingest-rate.ts';
export {
  type DefinedKind,
  isBuiltInKind,
  KindResolver,
  manifestNameSchema,
  type ResolvedKind,
  spinnakerKind,
  splitManifestName,
} from './kind-resolver.ts';
export {
  ON_DEMAND_DEFAULTS,
  type OnDemandDetails,
  type OnDemandOptions,
  OnDemandRefresh,
  type OnDemandRefreshDeps,
  type OnDemandRequest,
  type OnDemandResult,
} from './on-demand-refresh.ts';
