// Accounts: every account cloudctl knows (from agents and its own definitions), the permission
// checks on them, and accounts assigned to agents at run time (dynamic accounts).
export { type AccountAssignment, AccountAssignments } from './account-assignments.ts';
export {
  AccountDirectory,
  type AccountLookup,
  type AccountSource,
  agentAccounts,
  type KnownAccount,
} from './account-directory.ts';
export { AccountGuard } from './account-guard.ts';
export { type AgentAccountRouteDeps, agentAccountRoutes } from './agent-account-routes.ts';
