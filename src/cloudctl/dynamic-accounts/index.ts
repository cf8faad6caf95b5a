// Dynamic accounts: cloudctl-defined accounts placed on agents at run time (registered, activated,
// pinned to zones, or subscribed to by agents' patterns), with one caching agent per account, and the
// /vendor/accounts interface that drives and reads them.
export { AccountPlacement, type PlacementDeps } from './account-placement.ts';
export { ACCOUNT_STATES, type AccountState } from './account-state.ts';
export { DynamicAccountStore, type Holder, type Registration } from './dynamic-account-store.ts';
export {
  type DynamicAccountTables,
  dynamicAccountClusterMigration,
  dynamicAccountsMigration,
} from './dynamic-account-tables.ts';
export {
  type DynamicAccountsFeature,
  type DynamicAccountsFeatureDeps,
  dynamicAccountsFeature,
} from './dynamic-accounts-feature.ts';
export { dynamicAccountsRoutes } from './dynamic-accounts-routes.ts';
export { DynamicAccountsApi, type DynamicAccountsDeps } from './dynamic-accounts-service.ts';
