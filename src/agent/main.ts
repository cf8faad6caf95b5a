// The agent daemon: wires the loaded config to its parts, runs until a stop signal, then shuts down
// in the documented order (docs/decisions.md, "Graceful shutdown"): stop taking operations, give
// those in flight until the deadline and report the rest as failed, close the listeners, flush logs.
import { Registry } from 'prom-client';
import pkg from '../../package.json' with { type: 'json' };
import { secretValue } from '../secrets/index.ts';
import {
  AccountClusters,
  AccountLifecycle,
  AccountRegistry,
  dynamicAccountSettings,
} from './accounts/index.ts';
import type { CliIo } from './cli/cli-io.ts';
import type { LoadedConfig } from './config/index.ts';
import { ControlPlaneConnection, identityFromEnv, type Registration } from './connection/index.ts';
import {
  causeOf,
  createAgentMetrics,
  createLogger,
  defaultContextSources,
  HealthChecks,
  IdleMemoryRelease,
  type SideServer,
  startHealthServer,
  startMetricsServer,
  startPprofServer,
  watchObserver,
} from './observability/index.ts';
import { HANDLERS, OperationExecutor, OperationJournal } from './operations/index.ts';
import { GrpcCacheSink } from './watch/grpc-cache-sink.ts';
import { ConnectionBoundWatches, WatchManager, WatchRegistry } from './watch/index.ts';
import { PodMetricsPoller } from './watch/pod-metrics-poller.ts';

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** Kubernetes gives a pod 30 s after SIGTERM by default; 5 s are left for reporting and flushing. */
export const SHUTDOWN_DEADLINE_MS = 25_000;

/** Operations without a deadline of their own get this long. */
export const DEFAULT_OPERATION_DEADLINE_MS = 5 * 60_000;
/** How long the first reachability check of an account may take. */
const ACCOUNT_CHECK_TIMEOUT_MS = 15_000;
/** How long, at shutdown, results still queued get to reach the control plane. */
const RESULT_FLUSH_MS = 3_000;
/** How often the agent looks whether it has just become synced, to release memory (idle-memory.ts). */
const IDLE_MEMORY_CHECK_MS = 2_000;

export interface AgentRuntime {
  connection: ControlPlaneConnection;
  podMetrics: Map<string, PodMetricsPoller>;
  watch: WatchManager;
  accounts: AccountRegistry;
  clusters: AccountClusters;
  watches: WatchRegistry;
  operations: OperationJournal;
  executor: OperationExecutor;
  checks: HealthChecks;
}

export async function runAgent(
  loaded: LoadedConfig,
  io: CliIo,
  stop: Promise<string>,
  options: {
    shutdownDeadlineMs?: number;
    onStarted?: (runtime: AgentRuntime) => void;
    /** Prefix of the service-account files for `serviceAccount: true` (tests run in-cluster mode outside a pod). */
    serviceAccountRoot?: string;
    /** The first wait before a static account that failed at start is checked again (default 5 s). */
    accountRetryMs?: number;
  } = {},
): Promise<void> {
  const { config } = loaded;
  const logging = await createLogger(config, {
    stdout: io.stdout,
    context: defaultContextSources(io.env),
    onInternalError: (error) => io.err(`orch-agent: logging failed: ${error.message}`),
    now: Date.now,
  });
  const log = logging.logger;
  for (const issue of loaded.issues) {
    const entry = { file: issue.file, line: issue.line, column: issue.column, key: issue.path };
    if (issue.severity === 'warning') log.warn(entry, issue.message);
    else if (issue.severity === 'info') log.info(entry, issue.message);
    else log.debug(entry, issue.message);
  }

  const now = () => new Date();
  const registry = new Registry();
  const watches = new WatchRegistry(now);
  const metrics = createAgentMetrics(registry, {
    activeWatches: () => watches.active(),
    lastEvents: () => watches.lastEvents(),
  });
  const accounts = new AccountRegistry(now);
  const clusters = new AccountClusters({
    config,
    registry: accounts,
    env: io.env,
    onResponse: (verb, code) => metrics.kubernetesRequests.inc({ verb, code: String(code) }),
    onRetry: (verb, error) => {
      metrics.kubernetesRequestRetries.inc({ verb });
      log.debug({ verb, cause: causeOf(error) }, 'retrying a Kubernetes API request (orchestrator.retries)');
    },
    ...(options.serviceAccountRoot === undefined ? {} : { serviceAccountRoot: options.serviceAccountRoot }),
  });
  const journal = new OperationJournal({ capacity: 200, now: Date.now });
  const identity = identityFromEnv(io.env);
  const dynamic = dynamicAccountSettings(config);
  const registration = (): Registration => ({
    ...identity,
    dynamicAccounts: dynamic,
    accounts: accounts.statuses().flatMap((status) => {
      const account = accounts.config(status.name);
      const info = clusters.info(status.name);
      if (account === undefined) return [];
      return [
        {
          name: account.name,
          permissions: { read: account.permissions.READ ?? [], write: account.permissions.WRITE ?? [] },
          apiServerHost: info === undefined ? '' : new URL(info.server).host,
          kubernetesVersion: info?.kubernetesVersion ?? '',
          source: status.source,
          caching: status.caching,
        },
      ];
    }),
  });
  // Filled in below: the connection's callbacks reach the executor and the watches through it.
  const late: { runtime?: AgentRuntime } = {};
  const connection = new ControlPlaneConnection({
    config,
    version: pkg.version,
    registration,
    onOperation: (operation) => {
      const executor = late.runtime?.executor;
      if (executor === undefined) return;
      void executor.execute(operation).then((result) => connection.reportResult(result, operation.account));
    },
    onAddAccounts: (added) => void lifecycle.assign(added),
    onDeleteAccounts: (names) => void lifecycle.unassign(names),
    onRegistered: (info) => void lifecycle.direct(info.cache),
    onCacheDirectives: (directives) => void lifecycle.direct(directives),
    logger: log,
    metrics,
    env: io.env,
  });
  const watch = new WatchManager({
    config,
    sink: new GrpcCacheSink(connection),
    registry: watches,
    clusterFor: (name) => clusters.get(name),
    watchFilter: (name) => lifecycle.watchFilter(name),
    onSent: (account, events, bytes) => {
      metrics.eventsSent.inc({ account }, events);
      metrics.eventBytesSent.inc({ account }, bytes);
    },
    observer: watchObserver(metrics, log),
    onQueueDepth: (depth) => metrics.schedulerQueueDepth.set(depth),
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
        `not allowed to watch ${scope.group ? `${scope.kind}.${scope.group}` : scope.kind}: skipped (grant list and watch, or add it to omitKinds); checking again every 10 minutes`,
      ),
  });

  const podMetrics = new Map<string, PodMetricsPoller>();
  /** Starts an ACTIVE account's watches, and its pod metrics when `metrics: true`, if it is cached. */
  const startWatching = async (name: string) => {
    if (lifecycle.watchFilter(name) === undefined) return;
    await watch.startAccount(name);
    const cluster = clusters.get(name);
    if (cluster?.account.metrics !== true || podMetrics.has(name)) return;
    const poller = new PodMetricsPoller({
      cluster,
      buffer: watch.buffer,
      onUnavailable: (message) => log.warn({ account: name }, message),
      onError: (error) =>
        log.warn({ account: name, cause: causeOf(error) }, 'pod metrics round failed; next round in 20 s'),
    });
    podMetrics.set(name, poller);
    poller.start();
  };

  const stopWatching = async (name: string) => {
    await podMetrics.get(name)?.stop();
    podMetrics.delete(name);
    await watch.stopAccount(name);
  };
  const lifecycle: AccountLifecycle = new AccountLifecycle({
    variant: config.variant,
    registry: accounts,
    clusters,
    dynamic,
    secretEngines: loaded.secretEngines,
    watching: { start: (name) => bound.start(name), stop: (name) => bound.stop(name) },
    reporter: {
      status: (name, state, message) => connection.reportAccountStatus(name, state, message),
      refuse: (name, message) => connection.refuseAccount(name, message),
      forget: (name) => connection.forgetAccount(name),
    },
    log,
    checkTimeoutMs: ACCOUNT_CHECK_TIMEOUT_MS,
    ...(options.accountRetryMs === undefined ? {} : { retryInitialMs: options.accountRetryMs }),
  });

  const bound: ConnectionBoundWatches = new ConnectionBoundWatches({
    accounts: () =>
      accounts
        .statuses()
        .filter((a) => a.state === 'ACTIVE' && lifecycle.watchFilter(a.name) !== undefined)
        .map((a) => a.name),
    startGroups: (names) => watch.start(names),
    start: startWatching,
    stop: stopWatching,
    watched: () => watch.watchedAccounts(),
    dropBuffered: () => watch.buffer.clear(),
    log: log.child({ component: 'watch' }),
  });

  const runtime: AgentRuntime = {
    connection,
    podMetrics,
    watch,
    accounts,
    clusters,
    watches,
    operations: journal,
    executor: new OperationExecutor({
      handlers: HANDLERS,
      clusterFor: (name) => clusters.get(name),
      unavailableReason: (name) => accounts.status(name)?.lastAssignmentMsg,
      journal,
      defaultDeadlineMs: DEFAULT_OPERATION_DEADLINE_MS,
      rememberResults: 1000,
      now,
      secret: (reference) => secretValue(reference, loaded.secretEngines, 'the agent'),
      onFinished: (operation, result) => {
        metrics.operations.inc({ type: operation.type, result: result.ok ? 'succeeded' : 'failed' });
        metrics.operationDuration.observe({ type: operation.type }, result.durationMs / 1000);
      },
    }),
    checks: new HealthChecks(),
  };
  late.runtime = runtime;
  // Failed accounts are reported, not waited for; pending and active ones must have synced, unless
  // they are not cached (operations only).
  const waitingForSync = () =>
    accounts
      .statuses()
      .filter(
        (a) => a.state === 'PENDING' || (a.state === 'ACTIVE' && a.caching && !watch.accountSynced(a.name)),
      )
      .map((a) => a.name);
  lifecycle.addStatic(config.orchestrator.accounts);
  runtime.checks.register(connection.readinessCheck());
  runtime.checks.register({
    name: 'initial-sync',
    kind: 'readiness',
    check: () => {
      const waiting = waitingForSync();
      return waiting.length === 0
        ? { ok: true, message: 'every active account has synced' }
        : { ok: false, message: `initial sync in progress: ${waiting.join(', ')}` };
    },
  });
  runtime.checks.register({
    name: 'operations',
    kind: 'readiness',
    check: () =>
      runtime.operations.accepting
        ? { ok: true, message: 'accepting operations' }
        : { ok: false, message: 'shutting down: not accepting operations' },
  });

  const onServerError = (error: Error) => log.error({ err: error }, 'side server error');
  const servers: Array<[string, SideServer]> = [];
  const stopServers = async () => {
    for (const [, server] of servers.splice(0).reverse()) await server.close();
  };
  try {
    servers.push([
      'health',
      await startHealthServer(
        config.server,
        runtime.checks,
        {
          accounts: () => runtime.accounts.statuses(),
          watches: () => runtime.watches.list(),
          operations: () => ({
            inFlight: runtime.operations.inFlight(),
            recent: runtime.operations.recent(),
          }),
        },
        onServerError,
      ),
    ]);
    if (config.telemetry.enabled)
      servers.push(['metrics', await startMetricsServer(config.telemetry, registry, onServerError)]);
    if (config.pprof.enabled)
      servers.push(['pprof', await startPprofServer(config.pprof, onServerError, Date.now)]);
  } catch (error) {
    await stopServers();
    log.fatal({ err: error }, 'orch-agent cannot start');
    await logging.close();
    throw error;
  }

  connection.onStateChange((state, previous) => bound.connectionChanged(state, previous));
  await connection.start();
  const accountRetries = new AbortController();
  await lifecycle.activateStatic(config.orchestrator.accounts, accountRetries.signal);
  // In the background: accounts start in groups (cacheGroupSize) once a session is registered, and
  // readiness waits for them.
  void bound.open();
  const stopIdleRelease = new IdleMemoryRelease({
    synced: () => waitingForSync().length === 0,
    gc: globalThis.gc,
    rss: () => process.memoryUsage.rss(),
    now: () => performance.now(),
    onReleased: ({ pauseMs, rssBeforeBytes, rssAfterBytes }) =>
      log.info(
        { pauseMs: Math.round(pauseMs), rssBeforeMiB: mib(rssBeforeBytes), rssAfterMiB: mib(rssAfterBytes) },
        'synced: released the memory the start-up and sync left behind',
      ),
  }).start(IDLE_MEMORY_CHECK_MS);

  log.info(
    {
      version: pkg.version,
      variant: config.variant,
      accounts: config.orchestrator.accounts.map((a) => a.name),
      listeners: Object.fromEntries(servers.map(([name, server]) => [name, server.url])),
    },
    'orch-agent started',
  );
  options.onStarted?.(runtime);

  const signal = await stop;
  const deadlineMs = options.shutdownDeadlineMs ?? SHUTDOWN_DEADLINE_MS;
  log.info(
    { signal, inFlight: runtime.operations.inFlight().length, deadlineMs },
    'orch-agent stopping: no new operations',
  );
  const cutOff = await runtime.operations.drain(deadlineMs);
  for (const record of cutOff) {
    log.error(
      { operation: record.id, type: record.type, account: record.account },
      'operation cut off by shutdown, reported as failed',
    );
  }
  stopIdleRelease();
  accountRetries.abort();
  await Promise.all([...podMetrics.values()].map((poller) => poller.stop()));
  await watch.stop();
  await lifecycle.close();
  // Results of finished and cut-off operations get a last chance to reach the control plane.
  await connection.flushResults(RESULT_FLUSH_MS);
  await connection.stop();
  await stopServers();
  log.info({ cutOff: cutOff.length }, 'orch-agent stopped');
  await logging.close();
}
