// The resource cache: what agents stream up (orchagent.v1.Caching), stored and read back.
export {
  type ApplyOutcome,
  type CacheChange,
  type CachedResource,
  CacheStore,
  type ObjectKey,
  type ResumeVersion,
  type WatchScope,
} from './cache-store.ts';
export { cachingHandlers } from './caching-rpc.ts';
export { KindResolver, type ResolvedKind } from './kind-resolver.ts';
