// The watch feature as the agent wires it: the watch manager streaming through the session, the
// watches bound to the connection's state, each account's pod metrics beside its watches, and which
// accounts readiness still waits for. One factory, given the narrow parts it uses.
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import type { AccountClusters, AccountRegistry } from '../accounts/index.ts';
import type { AgentConfig } from '../config/index.ts';
import type { CacheSink, WatchScope } from './cache-item.ts';
import { ConnectionBoundWatches } from './connection-bound-watches.ts';
import { PodMetricsPoller } from './pod-metrics-poller.ts';
import { WatchManager } from './watch-manager.ts';
import type { WatchObserver } from './watch-observer.ts';
import type { WatchRegistry } from './watch-registry.ts';

export interface WatchingDeps {
  config: AgentConfig;
  sink: CacheSink;
  accounts: AccountRegistry;
  clusters: AccountClusters;
  registry: WatchRegistry;
  observer: WatchObserver;
  /** Events and bytes sent per account, and the task queue's depth, for the metrics. */
  onSent: (account: string, events: number, bytes: number) => void;
  onQueueDepth: (depth: number) => void;
  log: Log;
}

export interface Watching {
  manager: WatchManager;
  /** For the account lifecycle: starts and stops follow the connection's state. */
  bound: ConnectionBoundWatches;
  podMetrics: Map<string, PodMetricsPoller>;
  /** Accounts readiness waits for: pending, or active, cached and not yet synced. */
  waitingForSync(): string[];
  close(): Promise<void>;
}

function forbiddenMessage(scope: WatchScope): string {
  const kind = scope.group ? `${scope.kind}.${scope.group}` : scope.kind;
  return `not allowed to watch ${kind}: skipped (grant list and watch, or add it to omitKinds); checking again every 10 minutes`;
}

export function createWatching(deps: WatchingDeps): Watching {
  const { accounts, clusters, log } = deps;
  const manager = new WatchManager({
    config: deps.config,
    sink: deps.sink,
    registry: deps.registry,
    clusterFor: (name) => clusters.get(name),
    watchFilter: (name) => accounts.watchFilter(name),
    onSent: deps.onSent,
    observer: deps.observer,
    onQueueDepth: deps.onQueueDepth,
    onError: (context, error) => log.warn({ context, cause: causeOf(error) }, 'watch problem; retrying'),
    onForbidden: (scope, message) =>
      log.warn(
        {
          account: scope.account,
          kind: scope.kind,
          group: scope.group,
          namespace: scope.namespace || '(all)',
          reason: message,
        },
        forbiddenMessage(scope),
      ),
  });
  const podMetrics = new Map<string, PodMetricsPoller>();
  /** Starts an ACTIVE account's watches, and its pod metrics when `metrics: true`, if it is cached. */
  const start = async (name: string) => {
    if (accounts.watchFilter(name) === undefined) return;
    await manager.startAccount(name);
    const cluster = clusters.get(name);
    if (cluster?.account.metrics !== true || podMetrics.has(name)) return;
    const poller = new PodMetricsPoller({
      cluster,
      buffer: manager.buffer,
      onUnavailable: (message) => log.warn({ account: name }, message),
      onError: (error) =>
        log.warn({ account: name, cause: causeOf(error) }, 'pod metrics round failed; next round in 20 s'),
    });
    podMetrics.set(name, poller);
    poller.start();
  };
  const stop = async (name: string) => {
    await podMetrics.get(name)?.stop();
    podMetrics.delete(name);
    await manager.stopAccount(name);
  };
  const bound = new ConnectionBoundWatches({
    accounts: () =>
      accounts
        .statuses()
        .filter((a) => a.state === 'ACTIVE' && accounts.watchFilter(a.name) !== undefined)
        .map((a) => a.name),
    startGroups: (names) => manager.start(names),
    start,
    stop,
    watched: () => manager.watchedAccounts(),
    dropBuffered: () => manager.buffer.clear(),
    log: log.child({ component: 'watch' }),
  });
  // Failed accounts are reported, not waited for; pending and active ones must have synced, unless
  // they are not cached (operations only).
  const waitingForSync = () =>
    accounts
      .statuses()
      .filter(
        (a) => a.state === 'PENDING' || (a.state === 'ACTIVE' && a.caching && !manager.accountSynced(a.name)),
      )
      .map((a) => a.name);
  const close = async () => {
    await Promise.all([...podMetrics.values()].map((poller) => poller.stop()));
    await manager.stop();
  };
  return { manager, bound, podMetrics, waitingForSync, close };
}
