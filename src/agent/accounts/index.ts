// Accounts: which clusters this agent serves, their assignment state, and the connection to each.
export type { ClusterInfo } from './account-clusters.ts';
export { AccountClusters } from './account-clusters.ts';
export type { AccountSource, AccountState, AccountStatus } from './account-registry.ts';
export { AccountRegistry } from './account-registry.ts';
