// The agent daemon: wires the loaded config to its parts, runs until a stop signal, then shuts down
// in the documented order (docs/decisions.md, "Graceful shutdown"): stop taking operations, give
// those in flight until the deadline and report the rest as failed, close the listeners, flush logs.
import { Registry } from 'prom-client';
import pkg from '../../package.json' with { type: 'json' };
import { AccountClusters, AccountRegistry } from './accounts/index.ts';
import type { CliIo } from './cli/cli-io.ts';
import type { LoadedConfig } from './config/index.ts';
import {
  createAgentMetrics,
  createLogger,
  defaultContextSources,
  HealthChecks,
  type SideServer,
  startHealthServer,
  startMetricsServer,
  startPprofServer,
} from './observability/index.ts';
import { HANDLERS, OperationExecutor, OperationJournal } from './operations/index.ts';
import { WatchRegistry } from './watch/index.ts';

/** Kubernetes gives a pod 30 s after SIGTERM by default; 5 s are left for reporting and flushing. */
export const SHUTDOWN_DEADLINE_MS = 25_000;

/** Operations without a deadline of their own get this long. */
export const DEFAULT_OPERATION_DEADLINE_MS = 5 * 60_000;
/** How long the first reachability check of an account may take. */
const ACCOUNT_CHECK_TIMEOUT_MS = 15_000;

export interface AgentRuntime {
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
    else log.debug(entry, issue.message);
  }

  const now = () => new Date();
  const registry = new Registry();
  const watches = new WatchRegistry(now);
  const metrics = createAgentMetrics(registry, { activeWatches: () => watches.active() });
  const accounts = new AccountRegistry(now);
  const clusters = new AccountClusters({
    config,
    registry: accounts,
    env: io.env,
    onResponse: (verb, code) => metrics.kubernetesRequests.inc({ verb, code: String(code) }),
    ...(options.serviceAccountRoot === undefined ? {} : { serviceAccountRoot: options.serviceAccountRoot }),
  });
  const journal = new OperationJournal({ capacity: 200, now: Date.now });
  const runtime: AgentRuntime = {
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
      onFinished: (operation, result) => {
        metrics.operations.inc({ type: operation.type, result: result.ok ? 'succeeded' : 'failed' });
        metrics.operationDuration.observe({ type: operation.type }, result.durationMs / 1000);
      },
    }),
    checks: new HealthChecks(),
  };
  for (const account of config.orchestrator.accounts) accounts.add(account, 'static-agent-config');
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

  await Promise.all(
    config.orchestrator.accounts.map(async (account) => {
      const connected = await clusters.connect(account, AbortSignal.timeout(ACCOUNT_CHECK_TIMEOUT_MS));
      const status = accounts.status(account.name);
      if (connected)
        log.info({ account: account.name, cluster: clusters.info(account.name) }, 'account active');
      else log.error({ account: account.name, reason: status?.lastAssignmentMsg }, 'account failed');
    }),
  );

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
  await stopServers();
  log.info({ cutOff: cutOff.length }, 'orch-agent stopped');
  await logging.close();
}
