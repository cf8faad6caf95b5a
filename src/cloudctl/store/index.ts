// The control plane's database: PostgreSQL through Kysely, embedded (PGlite) or a server (pg), its
// migrations and tables, and the handle that bundles each feature's record keeper.
export { ChangeCounter } from './change-counter.ts';
export { type Database, type DatabaseTarget, openDatabase } from './database.ts';
export type * from './schema.ts';
export { type CloudctlStore, openStore } from './store.ts';
