// The live feed: GET /watch streams what changes in cloudctl's store (objects, tasks, deployments) as
// Server-Sent Events, numbered by the watch sequence so a client resumes exactly where it stopped, on
// any replica, after any restart. docs/watch.md is the guide.

export { objectFigures } from './object-figures.ts';
export * from './watch-events.ts';
export { type WatchFeature, type WatchFeatureDeps, type WatchWords, watchFeature } from './watch-feature.ts';
export type { WatchHub } from './watch-hub.ts';
export { type WatchRouteOptions, watchRoute } from './watch-routes.ts';
export { WatchStore } from './watch-store.ts';
export { type WatchTables, watchMigration } from './watch-tables.ts';
