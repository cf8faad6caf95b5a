// What the status page reads, each through its owning feature's service: account records through
// the dynamic accounts API (the records GET /vendor/accounts answers, filtered by READ), the cache's
// counts, the live registry and the agents' durable record, tasks and operations. Built once.
import type { AccountGuard } from '../accounts/index.ts';
import { DynamicAccountsApi, type DynamicAccountsDeps } from '../dynamic-accounts/index.ts';
import type { AgentRegistry, SessionFinder } from '../sessions/index.ts';
import type { CloudctlStore } from '../store/index.ts';

export interface StatusPageDeps {
  guard: AccountGuard;
  store: Pick<CloudctlStore, 'agents' | 'cache' | 'tasks' | 'operations' | 'credentials' | 'dynamicAccounts'>;
  /** This replica's live sessions: heartbeats are known only where the session is. */
  registry: Pick<AgentRegistry, 'list'>;
  sessions: SessionFinder;
  placement: DynamicAccountsDeps['placement'];
  now: () => Date;
}

export interface StatusSources extends StatusPageDeps {
  accounts: DynamicAccountsApi;
}

export type AccountRecord = Awaited<ReturnType<DynamicAccountsApi['get']>>;

export function statusSources(deps: StatusPageDeps): StatusSources {
  return { ...deps, accounts: new DynamicAccountsApi(deps) };
}
