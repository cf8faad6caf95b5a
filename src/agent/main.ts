// The agent daemon: the loaded config wired to its features, each built by its factory in
// dependency order, run until a stop signal, then shut down in the documented order
// (docs/decisions.md, "Graceful shutdown"): stop taking operations, give those in flight until the
// deadline and report the rest as failed, close the listeners, flush logs.
import { Registry } from 'prom-client';
import pkg from '../../package.json' with { type: 'json' };
import type { CliIo } from '../lib/cli-io.ts';
import type { Log } from '../lib/log.ts';
import {
  type AccountClusters,
  AccountLifecycle,
  type AccountRegistry,
  type Accounts,
  createAccounts,
} from './accounts/index.ts';
import type { LoadedConfig } from './config/index.ts';
import { ControlPlaneConnection, identityFromEnv } from './connection/index.ts';
import {
  type AdminSources,
  type AgentLogging,
  type AgentMetrics,
  createAgentMetrics,
  createLogger,
  defaultContextSources,
  HealthChecks,
  logConfigIssues,
  registerReadiness,
  type SideServers,
  startIdleMemoryRelease,
  startSideServers,
  watchObserver,
} from './observability/index.ts';
import { createOperations, type OperationExecutor, type OperationJournal } from './operations/index.ts';
import {
  createWatching,
  GrpcCacheSink,
  type PodMetricsPoller,
  type Watching,
  type WatchManager,
  WatchRegistry,
} from './watch/index.ts';

/** Kubernetes gives a pod 30 s after SIGTERM by default; 5 s are left for reporting and flushing. */
export const SHUTDOWN_DEADLINE_MS = 25_000;
/** How long the first reachability check of an account may take. */
const ACCOUNT_CHECK_TIMEOUT_MS = 15_000;
/** How long, at shutdown, results still queued get to reach the control plane. */
const RESULT_FLUSH_MS = 3_000;

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

export interface RunAgentOptions {
  shutdownDeadlineMs?: number;
  onStarted?: (runtime: AgentRuntime) => void;
  /** Prefix of the service-account files for `serviceAccount: true` (tests run in-cluster mode outside a pod). */
  serviceAccountRoot?: string;
  /** The first wait before a static account that failed at start is checked again (default 5 s). */
  accountRetryMs?: number;
}

/** What the agent's parts report to the metrics: Kubernetes requests, events sent, operations. */
function metricHooks(metrics: AgentMetrics) {
  return {
    onResponse: (verb: string, code: number) => metrics.kubernetesRequests.inc({ verb, code: String(code) }),
    onRetry: (verb: string) => metrics.kubernetesRequestRetries.inc({ verb }),
    onSent: (account: string, events: number, bytes: number) => {
      metrics.eventsSent.inc({ account }, events);
      metrics.eventBytesSent.inc({ account }, bytes);
    },
    onQueueDepth: (depth: number) => metrics.schedulerQueueDepth.set(depth),
    onFinished: (operation: { type: string }, result: { ok: boolean; durationMs: number }) => {
      metrics.operations.inc({ type: operation.type, result: result.ok ? 'succeeded' : 'failed' });
      metrics.operationDuration.observe({ type: operation.type }, result.durationMs / 1000);
    },
  };
}

/** The account lifecycle: accounts held, reported up the connection, watched while connected. */
function accountLifecycle(
  loaded: LoadedConfig,
  parts: { accounts: Accounts; watching: Watching; connection: ControlPlaneConnection; log: Log },
  options: RunAgentOptions,
): AccountLifecycle {
  const { accounts, connection } = parts;
  return new AccountLifecycle({
    variant: loaded.config.variant,
    registry: accounts.registry,
    clusters: accounts.clusters,
    dynamic: accounts.dynamic,
    secretEngines: loaded.secretEngines,
    watching: parts.watching.bound,
    reporter: {
      status: (name, state, message) =>
        connection.reportAccountStatus(
          name,
          state,
          message,
          state === 'ACTIVE' ? accounts.clusterOf(name) : undefined,
        ),
      refuse: (name, message) => connection.refuseAccount(name, message),
      forget: (name) => connection.forgetAccount(name),
    },
    log: parts.log,
    checkTimeoutMs: ACCOUNT_CHECK_TIMEOUT_MS,
    ...(options.accountRetryMs === undefined ? {} : { retryInitialMs: options.accountRetryMs }),
  });
}

/** What the control plane sends goes to the accounts and the executor; results go back up. */
function serveControlPlane(
  connection: ControlPlaneConnection,
  lifecycle: AccountLifecycle,
  executor: OperationExecutor,
) {
  connection.serve({
    onOperation: (operation) =>
      void executor.execute(operation).then((result) => connection.reportResult(result, operation.account)),
    onAddAccounts: (added) => void lifecycle.assign(added),
    onDeleteAccounts: (names) => void lifecycle.unassign(names),
    onRegistered: (info) => void lifecycle.direct(info.cache),
    onCacheDirectives: (directives) => void lifecycle.direct(directives),
  });
}

/** Shuts down in the documented order, once `stop` names the signal. */
async function shutDown(
  runtime: AgentRuntime,
  parts: { watching: Watching; lifecycle: AccountLifecycle; servers: SideServers; log: Log },
  stopBackground: () => void,
  options: { signal: string; deadlineMs: number },
): Promise<number> {
  const { log } = parts;
  log.info(
    {
      signal: options.signal,
      inFlight: runtime.operations.inFlight().length,
      deadlineMs: options.deadlineMs,
    },
    'orch-agent stopping: no new operations',
  );
  const cutOff = await runtime.operations.drain(options.deadlineMs);
  for (const record of cutOff) {
    log.error(
      { operation: record.id, type: record.type, account: record.account },
      'operation cut off by shutdown, reported as failed',
    );
  }
  stopBackground();
  await parts.watching.close();
  await parts.lifecycle.close();
  // Results of finished and cut-off operations get a last chance to reach the control plane.
  await runtime.connection.flushResults(RESULT_FLUSH_MS);
  await runtime.connection.stop();
  await parts.servers.close();
  return cutOff.length;
}

type Telemetry = ReturnType<typeof telemetry>;

/** The metrics registry, the registry of running watches it reads, and the agent's metrics. */
function telemetry(now: () => Date) {
  const registry = new Registry();
  const watches = new WatchRegistry(now);
  const metrics = createAgentMetrics(registry, {
    activeWatches: () => watches.active(),
    lastEvents: () => watches.lastEvents(),
  });
  return { registry, watches, metrics, hooks: metricHooks(metrics) };
}

/** The session with the control plane; each hello names the agent and the accounts it serves. */
function controlPlaneConnection(
  loaded: LoadedConfig,
  io: CliIo,
  accounts: Accounts,
  metrics: AgentMetrics,
  log: Log,
) {
  const identity = identityFromEnv(io.env, undefined, defaultContextSources(io.env).readNamespaceFile);
  return new ControlPlaneConnection({
    config: loaded.config,
    version: pkg.version,
    registration: () => ({ ...identity, dynamicAccounts: accounts.dynamic, accounts: accounts.registered() }),
    logger: log,
    metrics,
    env: io.env,
  });
}

/** The health server's admin view: accounts, watches and operations. */
function adminSources(accounts: Accounts, watches: WatchRegistry, journal: OperationJournal): AdminSources {
  return {
    accounts: () => accounts.registry.statuses(),
    watches: () => watches.list(),
    operations: () => ({ inFlight: journal.inFlight(), recent: journal.recent() }),
  };
}

/** Connects, checks the static accounts, then lets the watches start; returns what stops the rest. */
async function startRunning(
  config: LoadedConfig['config'],
  parts: { connection: ControlPlaneConnection; lifecycle: AccountLifecycle; watching: Watching; log: Log },
): Promise<() => void> {
  const { connection, lifecycle, watching } = parts;
  connection.onStateChange((state, previous) => watching.bound.connectionChanged(state, previous));
  await connection.start();
  const accountRetries = new AbortController();
  await lifecycle.activateStatic(config.orchestrator.accounts, accountRetries.signal);
  // In the background: accounts start in groups (cacheGroupSize) once a session is registered, and
  // readiness waits for them.
  void watching.bound.open();
  const synced = () => watching.waitingForSync().length === 0;
  const stopIdleRelease = startIdleMemoryRelease({ synced, log: parts.log });
  return () => {
    stopIdleRelease();
    accountRetries.abort();
  };
}

/** The logger the config asks for, with the loader's warnings and notes logged. */
async function agentLogging(loaded: LoadedConfig, io: CliIo) {
  const logging = await createLogger(loaded.config, {
    stdout: io.stdout,
    context: defaultContextSources(io.env),
    onInternalError: (error) => io.err(`orch-agent: logging failed: ${error.message}`),
    now: Date.now,
  });
  logConfigIssues(logging.logger, loaded.issues);
  return logging;
}

/** The watch feature, streaming through the connection's session. */
function watchingThrough(
  connection: ControlPlaneConnection,
  parts: { config: LoadedConfig['config']; accounts: Accounts; telemetry: Telemetry; log: Log },
): Watching {
  const { accounts, telemetry, log } = parts;
  return createWatching({
    config: parts.config,
    sink: new GrpcCacheSink(connection),
    accounts: accounts.registry,
    clusters: accounts.clusters,
    registry: telemetry.watches,
    observer: watchObserver(telemetry.metrics, log),
    onSent: telemetry.hooks.onSent,
    onQueueDepth: telemetry.hooks.onQueueDepth,
    log,
  });
}

/** Readiness: the session, the initial sync, operations accepted. */
function agentChecks(connection: ControlPlaneConnection, watching: Watching, journal: OperationJournal) {
  const checks = new HealthChecks();
  registerReadiness(checks, {
    connection: connection.readinessCheck(),
    waitingForSync: watching.waitingForSync,
    acceptingOperations: () => journal.accepting,
  });
  return checks;
}

/** The side listeners; if they cannot start, the agent says why, flushes its log and fails. */
function sideServers(
  config: LoadedConfig['config'],
  deps: { checks: HealthChecks; admin: AdminSources; telemetry: Telemetry },
  logging: AgentLogging,
): Promise<SideServers> {
  const log = logging.logger;
  const { checks, admin, telemetry } = deps;
  return startSideServers(config, { checks, admin, metrics: telemetry.registry, log }).catch(
    async (error) => {
      log.fatal({ err: error }, 'orch-agent cannot start');
      await logging.close();
      throw error;
    },
  );
}

export async function runAgent(
  loaded: LoadedConfig,
  io: CliIo,
  stop: Promise<string>,
  options: RunAgentOptions = {},
): Promise<void> {
  const { config, secretEngines } = loaded;
  const logging = await agentLogging(loaded, io);
  const log = logging.logger;
  const now = () => new Date();
  const tel = telemetry(now);
  const root = options.serviceAccountRoot;
  const accounts = createAccounts({
    config,
    env: io.env,
    now,
    log,
    onResponse: tel.hooks.onResponse,
    onRetry: tel.hooks.onRetry,
    ...(root === undefined ? {} : { serviceAccountRoot: root }),
  });
  const { registry: held, clusters } = accounts;
  const { journal, executor } = createOperations({
    clusterFor: (name) => clusters.get(name),
    unavailableReason: (name) => held.status(name)?.lastAssignmentMsg,
    secretEngines,
    now,
    onFinished: tel.hooks.onFinished,
  });
  const connection = controlPlaneConnection(loaded, io, accounts, tel.metrics, log);
  const watching = watchingThrough(connection, { config, accounts, telemetry: tel, log });
  const lifecycle = accountLifecycle(loaded, { accounts, watching, connection, log }, options);
  serveControlPlane(connection, lifecycle, executor);
  lifecycle.addStatic(config.orchestrator.accounts);
  const checks = agentChecks(connection, watching, journal);
  const admin = adminSources(accounts, tel.watches, journal);
  const servers = await sideServers(config, { checks, admin, telemetry: tel }, logging);
  const stopBackground = await startRunning(config, { connection, lifecycle, watching, log });
  const accountNames = config.orchestrator.accounts.map((a) => a.name);
  const started = { version: pkg.version, variant: config.variant, accounts: accountNames };
  log.info({ ...started, listeners: servers.urls }, 'orch-agent started');
  const { podMetrics, manager: watch } = watching;
  const { watches } = tel;
  const parts = { connection, podMetrics, watch, accounts: held, clusters, watches, operations: journal };
  const runtime: AgentRuntime = { ...parts, executor, checks };
  options.onStarted?.(runtime);
  const deadlineMs = options.shutdownDeadlineMs ?? SHUTDOWN_DEADLINE_MS;
  const shutdown = { signal: await stop, deadlineMs };
  const cutOff = await shutDown(runtime, { watching, lifecycle, servers, log }, stopBackground, shutdown);
  log.info({ cutOff }, 'orch-agent stopped');
  await logging.close();
}
