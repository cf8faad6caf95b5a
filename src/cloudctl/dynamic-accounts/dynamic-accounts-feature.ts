// The dynamic accounts feature's factory: the placement of cloudctl-defined accounts on agents (begun
// before it returns, so sessions that open next find it ready), and the /vendor/accounts routes.
// Stopping ends placement before the agents' sessions end, so their ends move no account.
import type { Logger } from 'pino';
import type { AccountGuard } from '../accounts/index.ts';
import type { CredentialStore } from '../credentials/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { AgentRegistry, AgentStore, SessionFinder } from '../sessions/index.ts';
import { AccountPlacement } from './account-placement.ts';
import type { DynamicAccountStore } from './dynamic-account-store.ts';
import { dynamicAccountsRoutes } from './dynamic-accounts-routes.ts';

export interface DynamicAccountsFeatureDeps {
  stores: {
    credentials: CredentialStore;
    agents: AgentStore;
    dynamicAccounts: DynamicAccountStore;
    /** Evicted when a static owner takes a name over from agents that cached cloudctl's copy. */
    cache: { forgetAccounts(accounts: readonly string[]): Promise<number> };
    replicas: { liveSessionIds(): Promise<string[]> };
  };
  registry: AgentRegistry;
  guard: AccountGuard;
  sessions: Pick<SessionFinder, 'isConnected' | 'dynamicAgentIn'>;
  /** The other cloudctl replicas on the same PostgreSQL; undefined for a single cloudctl. */
  replicas:
    | {
        sessionsElsewhere(): Promise<ReadonlySet<string>>;
        announcePlacement(trigger: { intercept?: string }): void;
      }
    | undefined;
  logger: Logger;
  now: () => Date;
}

export interface DynamicAccountsFeature extends Feature {
  placement: AccountPlacement;
  routes: Route[];
}

export async function dynamicAccountsFeature(
  deps: DynamicAccountsFeatureDeps,
): Promise<DynamicAccountsFeature> {
  const { stores, replicas, now } = deps;
  const placement = new AccountPlacement({
    registry: deps.registry,
    store: stores,
    logger: deps.logger,
    now,
    sessionsElsewhere: replicas === undefined ? undefined : () => replicas.sessionsElsewhere(),
    announce: (trigger) => replicas?.announcePlacement(trigger),
  });
  await placement.start();
  return {
    name: 'dynamic-accounts',
    phase: 'services',
    placement,
    close: () => placement.close(),
    routes: dynamicAccountsRoutes({
      guard: deps.guard,
      store: stores,
      sessions: deps.sessions,
      placement,
      now,
    }),
  };
}
