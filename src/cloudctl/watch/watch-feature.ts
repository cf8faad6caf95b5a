// The watch feature's factory: GET /watch and the hub behind it, woken by this process's stores and by
// the other replicas' words, and the pruning of the kept window. In the http phase: its streams end
// (with a `closed` event) when the HTTP server stops, not after it, which would wait for them.
import type { Logger } from 'pino';
import type { AccountGuard } from '../accounts/index.ts';
import type { CloudctlConfig } from '../config/index.ts';
import type { DeploymentStore } from '../deployments/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { CloudctlMetrics } from '../observability/index.ts';
import type { WatchSignal } from '../store/index.ts';
import type { TaskStore } from '../tasks/index.ts';
import { WatchHub } from './watch-hub.ts';
import { WatchReader } from './watch-reader.ts';
import { watchRoutes } from './watch-routes.ts';
import type { WatchStore } from './watch-store.ts';

/** How often the window is pruned: removals live a little longer than the window, never shorter. */
const PRUNE_MS = 60_000;

/** Word between replicas that the watch sequence moved (replicas/ReplicaMembership). */
export interface WatchWords {
  watchChanged(): void;
  onWatchChanged(watcher: () => void): void;
}

export interface WatchFeatureDeps {
  stores: {
    watch: WatchStore;
    watchSignal: WatchSignal;
    tasks: Pick<TaskStore, 'numbered'>;
    deployments: Pick<DeploymentStore, 'numbered'>;
  };
  guard: AccountGuard;
  settings: CloudctlConfig['watch'];
  /** Absent on one cloudctl alone (PGlite). */
  replicas: WatchWords | undefined;
  metrics: Pick<CloudctlMetrics, 'watchClients' | 'watchClosed'>;
  logger: Logger;
  now: () => Date;
}

export interface WatchFeature extends Feature {
  routes: Route[];
  hub: WatchHub;
}

export function watchFeature(deps: WatchFeatureDeps): WatchFeature {
  const { stores, guard, settings, replicas, metrics, logger, now } = deps;
  const reader = new WatchReader(stores);
  const hub = new WatchHub({
    reader,
    horizon: () => stores.watch.horizon(),
    floor: () => stores.watch.floor(),
    readable: async (user) =>
      user.admin ? null : new Set((await guard.visible(user, 'READ')).map((account) => account.name)),
    heartbeatMs: settings.keepAliveSeconds * 1000,
    bufferBytes: settings.clientBufferBytes,
    metrics: { clients: metrics.watchClients, closed: metrics.watchClosed },
    logger: logger.child({ component: 'watch' }),
  });
  let pruning: NodeJS.Timeout | undefined;
  let unlisten: (() => void) | undefined;
  const prune = () =>
    stores.watch
      .prune(new Date(now().getTime() - settings.windowSeconds * 1000))
      .catch((error: unknown) => logger.warn({ err: error }, 'watch: pruning the kept window failed'));
  return {
    name: 'watch',
    phase: 'http',
    routes: watchRoutes(hub),
    hub,
    async start() {
      unlisten = stores.watchSignal.listen(() => {
        hub.wake();
        replicas?.watchChanged();
      });
      replicas?.onWatchChanged(() => hub.wake());
      await prune();
      pruning = setInterval(prune, PRUNE_MS);
      pruning.unref();
    },
    close() {
      clearInterval(pruning);
      unlisten?.();
      hub.close();
    },
  };
}
