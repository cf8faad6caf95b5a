// Accounts: which clusters this agent serves, and their assignment state.
export type { AccountSource, AccountState, AccountStatus } from './account-registry.ts';
export { AccountRegistry } from './account-registry.ts';
