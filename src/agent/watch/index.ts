// Watching clusters: the registry of running watches.
export type { WatchState, WatchStatus } from './watch-registry.ts';
export { WatchRegistry } from './watch-registry.ts';
