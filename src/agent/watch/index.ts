// Watching clusters and streaming their state: targets from discovery and filters, one list/watch
// loop per scope, a bounded coalescing buffer, the task budget, and the registry of running watches.
export type { CacheItem, CacheSink, ResumePoint, WatchScope } from './cache-item.ts';
export { scopeKey } from './cache-item.ts';
export { ConnectionBoundWatches } from './connection-bound-watches.ts';
export { GrpcCacheSink } from './grpc-cache-sink.ts';
export type { PodMetricsPoller } from './pod-metrics-poller.ts';
export { TaskBudget } from './task-budget.ts';
export { BATCH_SIZE, BUFFER_CAPACITY, type WatchFilter, WatchManager } from './watch-manager.ts';
export type { ListMethod, ListReason, RestartReason, WatchObserver } from './watch-observer.ts';
export type { LastEvent, WatchState, WatchStatus } from './watch-registry.ts';
export { WatchRegistry } from './watch-registry.ts';
export type { WatchTarget } from './watch-targets.ts';
export { syntheticObjects, watchTargets } from './watch-targets.ts';
export type { Watching, WatchingDeps } from './watching.ts';
export { createWatching } from './watching.ts';
