// Accounts: every account cloudctl knows (from agents and its own definitions) and the permission
// checks on them, and a direct assignment of accounts to one agent.
export { type AccountAssignment, AccountAssignments } from './account-assignments.ts';
export {
  AccountDirectory,
  type AccountDirectoryOptions,
  type AccountLookup,
  type AccountSource,
  agentAccounts,
  type KnownAccount,
} from './account-directory.ts';
export { AccountGuard } from './account-guard.ts';
export { type AccountsFeature, type AccountsFeatureDeps, accountsFeature } from './accounts-feature.ts';
export { type AgentAccountRouteDeps, agentAccountRoutes } from './agent-account-routes.ts';
