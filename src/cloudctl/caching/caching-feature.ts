// The caching feature's factory: the orchagent.v1.Caching handlers that store what agents stream up
// (counting it for the introspection), the cache routes (on-demand refresh, introspection), and the
// eviction of accounts that have left cloudctl.
import type { Logger } from 'pino';
import { serviceDefinitions } from '../../proto/index.ts';
import type { AccountGuard } from '../accounts/index.ts';
import type { Feature } from '../feature.ts';
import type { GrpcService } from '../grpc/index.ts';
import type { Route } from '../http/index.ts';
import type { AgentStore, SessionFinder } from '../sessions/index.ts';
import type { IntrospectionSources } from './cache-introspection.ts';
import { cacheRoutes } from './cache-routes.ts';
import type { CacheStore } from './cache-store.ts';
import { type CachingRpcDeps, cachingHandlers } from './caching-rpc.ts';
import { IngestRate } from './ingest-rate.ts';
import type { KindResolver } from './kind-resolver.ts';
import { OnDemandRefresh, type OnDemandRefreshDeps } from './on-demand-refresh.ts';

export interface CachingFeatureDeps extends Omit<CachingRpcDeps, 'store'> {
  stores: CachingRpcDeps['store'] & {
    cache: CacheStore;
    kinds: KindResolver;
    agents: AgentStore;
    dynamicAccounts: IntrospectionSources['dynamicAccounts'];
    credentials: IntrospectionSources['credentials'];
  };
  /** The operation dispatcher: refreshes are the agent's `get`. */
  dispatcher: OnDemandRefreshDeps['operations'] & { serves(account: string): Promise<boolean> };
  guard: AccountGuard;
  sessions: Pick<SessionFinder, 'servingAgent'>;
  logger: Logger;
  now: () => Date;
}

export interface CachingFeature extends Feature {
  services: GrpcService[];
  routes: Route[];
  /**
   * Evicts what is cached of accounts no agent lists any more, except those a cloudctl definition
   * placed on an agent holds: that agent's cache is theirs now.
   */
  forgetAccounts(accounts: readonly string[]): Promise<void>;
}

export function cachingFeature(deps: CachingFeatureDeps): CachingFeature {
  const { stores, dispatcher, logger, now } = deps;
  const rate = new IngestRate();
  const refresh = new OnDemandRefresh({
    cache: stores.cache,
    kinds: stores.kinds,
    operations: dispatcher,
    served: (account) => dispatcher.serves(account),
    logger,
    now,
  });
  const handlers = cachingHandlers({ ...deps, store: stores }, rate);
  return {
    name: 'caching',
    phase: 'services',
    services: [{ name: 'orchagent.v1.Caching', definition: serviceDefinitions().caching, handlers }],
    routes: cacheRoutes({
      guard: deps.guard,
      refresh,
      introspection: {
        agents: stores.agents,
        dynamicAccounts: stores.dynamicAccounts,
        credentials: stores.credentials,
        cache: stores.cache,
        sessions: deps.sessions,
        rate,
        now,
      },
    }),
    forgetAccounts: async (accounts) => {
      const unheld: string[] = [];
      for (const account of accounts)
        if ((await stores.dynamicAccounts.holders(account)).length === 0) unheld.push(account);
      const objects = await stores.cache.forgetAccounts(unheld);
      if (unheld.length > 0)
        logger.info({ accounts: unheld, objects }, 'evicted the cache of accounts that left');
    },
  };
}
