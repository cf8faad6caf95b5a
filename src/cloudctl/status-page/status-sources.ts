// What the status page reads, each through its owning feature's service: account records through
// the dynamic accounts API (the records GET /vendor/accounts answers, filtered by READ), the cache's
// counts, the live registry and the agents' durable record, tasks and operations, deployments and
// the decisions on them (the same functions the deployment routes call), plans and their apply (the
// plans feature's, as its routes run them). Built once.
import type { AccountGuard } from '../accounts/index.ts';
import type { OidcProvider } from '../auth/index.ts';
import type { CacheStore } from '../caching/index.ts';
import type { CredentialStore } from '../credentials/index.ts';
import type { DeploymentDecisionDeps, DeploymentRunner, DeploymentStore } from '../deployments/index.ts';
import {
  type DynamicAccountStore,
  DynamicAccountsApi,
  type DynamicAccountsDeps,
} from '../dynamic-accounts/index.ts';
import type { ClientCredentials } from '../oauth/index.ts';
import type { OperationStore } from '../operations/index.ts';
import type { CheckedPlans } from '../plans/index.ts';
import type { PreviewLinks } from '../previews/index.ts';
import type { ReadModel } from '../read-model/index.ts';
import type { AgentRegistry, AgentStore, SessionFinder } from '../sessions/index.ts';
import type { TaskStore } from '../tasks/index.ts';
import type { WatchStore } from '../watch/index.ts';

export interface StatusPageDeps {
  guard: AccountGuard;
  store: {
    agents: AgentStore;
    cache: CacheStore;
    tasks: TaskStore;
    operations: OperationStore;
    credentials: CredentialStore;
    dynamicAccounts: DynamicAccountStore;
    deployments: DeploymentStore;
    /** Applications, their clusters, server groups, pods and load balancers (the applications views). */
    readModel: ReadModel;
    /** Where the watch sequence stands: a live view's feed starts there, so nothing falls between. */
    watch: Pick<WatchStore, 'horizon'>;
  };
  /** Woken when a pause is decided on the page; asked for a rollback. */
  deploymentRunner: Pick<DeploymentRunner, 'wake' | 'requestRollback'>;
  /** This replica's live sessions: heartbeats are known only where the session is. */
  registry: Pick<AgentRegistry, 'list'>;
  sessions: SessionFinder;
  /** Plans read and applied as the user, access checked as GET /plans/{id} and its apply check it. */
  plans: CheckedPlans;
  /** A deployment's preview URLs (its exposeServices steps'), as GET /deployments/{id} lists them. */
  previews: Pick<PreviewLinks, 'ofDeployment'>;
  /** Client credentials, made, revoked and rotated as /clients does it (administrators only). */
  oauth: { credentials: ClientCredentials };
  placement: DynamicAccountsDeps['placement'];
  now: () => Date;
  /** The OpenID Connect provider, when `auth.oidc` is configured: sign-in there if it has `statusPage`. */
  oidc?: OidcProvider;
}

export interface StatusSources extends StatusPageDeps {
  accounts: DynamicAccountsApi;
  deployments: DeploymentDecisionDeps;
}

export type AccountRecord = Awaited<ReturnType<DynamicAccountsApi['get']>>;

export function statusSources(deps: StatusPageDeps): StatusSources {
  return {
    ...deps,
    accounts: new DynamicAccountsApi(deps),
    deployments: {
      runner: deps.deploymentRunner,
      store: deps.store.deployments,
      guard: deps.guard,
      now: deps.now,
    },
  };
}
