// The accounts feature's factory: the directory of every account cloudctl knows (agents' first, then
// the other places given), the guard that checks READ and WRITE on them, direct assignments of
// accounts to one agent, and the agent-account routes.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { AgentRegistry, AgentStore } from '../sessions/index.ts';
import type { ChangeCounter } from '../store/index.ts';
import { AccountAssignments } from './account-assignments.ts';
import { AccountDirectory, type AccountLookup, agentAccounts } from './account-directory.ts';
import { AccountGuard } from './account-guard.ts';
import { type AgentAccountRouteDeps, agentAccountRoutes } from './agent-account-routes.ts';

/** How stale the account directory's copy may get for writes made by another cloudctl process. */
const ACCOUNT_COPY_MAX_AGE_MS = 1000;

export interface AccountsFeatureDeps {
  stores: AgentAccountRouteDeps['store'] & {
    agents: AgentStore;
    accountChanges: ChangeCounter;
    /** Only this process writes the database: the change counter sees every write of accounts. */
    embedded: boolean;
  };
  /** Where else accounts are defined (cloudctl's own credentials), ranked below the agents'. */
  lookups: readonly AccountLookup[];
  registry: AgentRegistry;
  sessions: AgentAccountRouteDeps['sessions'];
  now: () => Date;
}

export interface AccountsFeature extends Feature {
  directory: AccountDirectory;
  guard: AccountGuard;
  assignments: AccountAssignments;
  routes: Route[];
}

export function accountsFeature(deps: AccountsFeatureDeps): AccountsFeature {
  const { stores } = deps;
  // An agent's definition of an account wins over cloudctl's own. Writes by this process show at
  // once; a write by another process on the same database within ACCOUNT_COPY_MAX_AGE_MS. An embedded
  // database has no other process, so its copy is reloaded only after a write here: reloading it by
  // age cost two statements on about half the deploys' POSTs (bench:ops-latency).
  const directory = new AccountDirectory([agentAccounts(stores), ...deps.lookups], {
    changes: stores.accountChanges,
    maxAgeMs: stores.embedded ? Number.POSITIVE_INFINITY : ACCOUNT_COPY_MAX_AGE_MS,
  });
  const guard = new AccountGuard(directory);
  return {
    name: 'accounts',
    phase: 'services',
    directory,
    guard,
    assignments: new AccountAssignments({ registry: deps.registry, store: stores, now: deps.now }),
    routes: agentAccountRoutes({ guard, store: stores, sessions: deps.sessions }),
  };
}
