// Accounts: which clusters this agent serves, their assignment state, and the connection to each.
export type { AccountCluster } from './account-cluster.ts';
export type { ClusterInfo } from './account-clusters.ts';
export { AccountClusters } from './account-clusters.ts';
export type { AccountLifecycleDeps, Assignment } from './account-lifecycle.ts';
export { AccountLifecycle } from './account-lifecycle.ts';
export type { AccountSource, AccountState, AccountStatus, CacheDirective } from './account-registry.ts';
export { AccountRegistry } from './account-registry.ts';
export type { Accounts, AccountsDeps, RegisteredAccount } from './accounts-feature.ts';
export { createAccounts } from './accounts-feature.ts';
export { defaultNamespace, namespaceAllowed } from './default-namespace.ts';
export { isPlatformManaged } from './platform-managed.ts';
