// Wires cloudctl together: config -> store -> features -> transports (gRPC for agents, HTTP for
// people and tools). The returned handle is what tests drive.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import pkg from '../../package.json' with { type: 'json' };
import { serviceDefinitions } from '../proto/index.ts';
import {
  AccountAssignments,
  AccountDirectory,
  AccountGuard,
  agentAccountRoutes,
  agentAccounts,
} from './accounts/index.ts';
import { AgentAuthenticator, configUsers, UserAuthenticator } from './auth/index.ts';
import {
  type CachingRpcDeps,
  cacheRoutes,
  cachingHandlers,
  IngestRate,
  OnDemandRefresh,
} from './caching/index.ts';
import { type CloudctlStores, openStores } from './cloudctl-stores.ts';
import type { CloudctlConfig } from './config/index.ts';
import { credentialAccounts, credentialsRoutes } from './credentials/index.ts';
import {
  DeploymentRunner,
  deploymentRoutes,
  directWebhookTransport,
  webhookSecrets,
  webhookSender,
} from './deployments/index.ts';
import { AccountPlacement, dynamicAccountsRoutes } from './dynamic-accounts/index.ts';
import { CloudctlError } from './errors.ts';
import { type GrpcEndpoint, type GrpcService, startGrpcEndpoint } from './grpc/index.ts';
import { type HttpEndpoint, type Route, startHttpEndpoint } from './http/index.ts';
import { inapplicableRoutes } from './inapplicable/index.ts';
import { oauthRoutes, oauthTokens } from './oauth/index.ts';
import { type CloudctlMetrics, createCloudctlMetrics, observabilityRoutes } from './observability/index.ts';
import {
  OperationDispatcher,
  type OperationResultsRpcDeps,
  operationResultsHandlers,
} from './operations/index.ts';
import { readModelRoutes } from './read-model/index.ts';
import {
  REPLICA_BEAT_MS,
  REPLICA_LEASE_MS,
  ReplicaMembership,
  startPostgresReplicaBus,
} from './replicas/index.ts';
import { AgentRegistry, SessionFinder, type SessionRpcDeps, sessionHandlers } from './sessions/index.ts';
import { statusPageRoutes } from './status-page/index.ts';
import type { DatabaseTarget } from './store/index.ts';
import { opsRoutes, TaskRunner, taskRoutes } from './tasks/index.ts';

/** How stale the account directory's copy may get for writes made by another cloudctl process. */
const ACCOUNT_COPY_MAX_AGE_MS = 1000;

export interface ControlPlaneDeps {
  logger: Logger;
  now?: () => Date;
  /** False stores objects without the read model's index: only for measuring what the index costs. */
  readIndex?: boolean;
}

export interface ControlPlane {
  /** The gRPC port agents dial. */
  port: number;
  /** The HTTP API's port. */
  httpPort: number;
  metrics: CloudctlMetrics;
  registry: AgentRegistry;
  operations: OperationDispatcher;
  /** Assigns accounts to one connected agent directly (the agent's watch tests). */
  accounts: AccountAssignments;
  /** Dynamic accounts: which agents hold which cloudctl account, and which one caches it. */
  placement: AccountPlacement;
  store: CloudctlStores;
  /** Every account cloudctl knows, agents' and its own. */
  directory: AccountDirectory;
  close(): Promise<void>;
}

/** The orchagent.v1 services agents call, each a feature's thin adapter. */
export const AGENT_SERVICES = [
  'orchagent.v1.AgentSession',
  'orchagent.v1.Caching',
  'orchagent.v1.OperationResults',
] as const;

type RpcDeps = SessionRpcDeps & CachingRpcDeps & OperationResultsRpcDeps;

function agentServices(deps: RpcDeps, ingest: IngestRate): GrpcService[] {
  const definitions = serviceDefinitions();
  return [
    { name: AGENT_SERVICES[0], definition: definitions.session, handlers: sessionHandlers(deps) },
    { name: AGENT_SERVICES[1], definition: definitions.caching, handlers: cachingHandlers(deps, ingest) },
    {
      name: AGENT_SERVICES[2],
      definition: definitions.operationResults,
      handlers: operationResultsHandlers(deps),
    },
  ];
}

/** Where people and webhook jobs reach this cloudctl's HTTP API. */
function externalUrl(settings: CloudctlConfig['http'], port: number): string {
  if (settings.externalUrl !== undefined) return settings.externalUrl.replace(/\/+$/, '');
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? hostname() : settings.host;
  return `${settings.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The URL in `database.urlFile` (a mounted Secret: one line, trailing whitespace ignored). */
function readDatabaseUrl(file: string): string {
  let url: string;
  try {
    url = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new CloudctlError('CONFIG_INVALID', `database.urlFile: cannot read ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  // Never echo the content: it holds a password.
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new CloudctlError('CONFIG_INVALID', `database.urlFile: ${file} does not hold a postgres:// URL`);
  return url;
}

export function databaseTarget(database: CloudctlConfig['database']): DatabaseTarget {
  if (database.url !== undefined) return { kind: 'postgres', url: database.url };
  if (database.urlFile !== undefined) return { kind: 'postgres', url: readDatabaseUrl(database.urlFile) };
  return { kind: 'pglite', dataDir: database.dataDir ?? 'memory://' };
}

export async function startControlPlane(
  config: CloudctlConfig,
  deps: ControlPlaneDeps,
): Promise<ControlPlane> {
  const now = deps.now ?? (() => new Date());
  const target = databaseTarget(config.database);
  const store = await openStores(target, { readIndex: deps.readIndex ?? true });
  const registry = new AgentRegistry();
  // On PostgreSQL, cloudctl is one of any number of replicas: work for an account whose agent holds
  // its stream with another replica goes there (the embedded database is single-node by nature).
  const replicas: ReplicaMembership | undefined =
    target.kind !== 'postgres'
      ? undefined
      : new ReplicaMembership({
          store: store.replicas,
          bus: await startPostgresReplicaBus({
            url: target.url,
            notify: (channel, payload) => store.replicas.notify(channel, payload),
            logger: deps.logger,
          }),
          registry,
          logger: deps.logger,
          beatMs: REPLICA_BEAT_MS,
          deliver: (operationId, sessionId) => operations.deliver(operationId, sessionId),
          resultStored: (operationId) => operations.resultStoredElsewhere(operationId),
          recheck: () => operations.recheckWaiting(),
          place: (trigger) => placement.place(trigger),
        });
  const metricsRegistry = new Registry();
  const metrics = createCloudctlMetrics(metricsRegistry, { sessions: () => registry.list().length });
  const operations: OperationDispatcher = new OperationDispatcher({
    registry,
    store,
    logger: deps.logger,
    now,
    waitTimeoutMs: config.operations.waitTimeoutMs,
    onOutcome: (type, outcome) => metrics.operations.inc({ type, outcome }),
    router: replicas,
  });
  // An agent's definition of an account wins over cloudctl's own. Writes by this process show at
  // once; a write by another replica on the same database within ACCOUNT_COPY_MAX_AGE_MS.
  const directory = new AccountDirectory([agentAccounts(store), credentialAccounts(store.credentials)], {
    changes: store.accountChanges,
    maxAgeMs: ACCOUNT_COPY_MAX_AGE_MS,
  });
  const guard = new AccountGuard(directory);
  const placement = new AccountPlacement({
    registry,
    store,
    logger: deps.logger,
    now,
    sessionsElsewhere: replicas === undefined ? undefined : () => replicas.sessionsElsewhere(),
    announce: (trigger) => replicas?.announcePlacement(trigger),
  });
  await placement.start();
  // Listens from here on: every handler it calls exists now.
  await replicas?.start();
  const ingest = new IngestRate();
  const refresh = new OnDemandRefresh({
    cache: store.cache,
    kinds: store.kinds,
    execute: (request) => operations.execute(request),
    served: (account) => operations.serves(account),
    logger: deps.logger,
    now,
  });
  // Where an account's session is, on this replica or another: what HTTP reads report.
  const sessions = new SessionFinder(registry, replicas);
  const runner = new TaskRunner({
    store,
    dispatcher: operations,
    registry,
    logger: deps.logger,
    now,
    reconnectGraceMs: config.operations.waitTimeoutMs,
    // One cloudctl on its embedded database is always the same owner, so its restart carries its
    // tasks on at once; a replica is a new owner and takes over a dead one's after the lease.
    leases: store.leases.leases('task', replicas?.id ?? 'cloudctl', REPLICA_LEASE_MS),
    sweepMs: REPLICA_BEAT_MS,
  });
  let stopping = false;
  let endpoint: GrpcEndpoint | undefined;
  let http: HttpEndpoint | undefined;
  const deployments = new DeploymentRunner({
    store: store.deployments,
    dispatcher: operations,
    operationStored: async (id) => (await store.operations.get(id)) !== undefined,
    webhooks: webhookSender({
      direct: directWebhookTransport(),
      onAgent: (account) => (type, payload) => operations.execute({ account, type, payload }),
      accountOfAgent: (agentId) => registry.newestSessionOf(agentId)?.accounts[0]?.name,
      secrets: webhookSecrets({ env: process.env, workingDir: process.cwd() }),
      logger: deps.logger,
    }),
    callbackBase: () => `${externalUrl(config.http, http?.port ?? config.http.port)}/deployments/callbacks`,
    leases: store.leases.leases('deployment', replicas?.id ?? 'cloudctl', REPLICA_LEASE_MS),
    sweepMs: REPLICA_BEAT_MS,
    reconnectGraceMs: config.operations.waitTimeoutMs,
    logger: deps.logger,
    now,
  });
  try {
    const rpcDeps: RpcDeps = {
      authenticator: new AgentAuthenticator(config.agents, deps.logger),
      registry,
      sessionListener: placement,
      store,
      dispatcher: operations,
      logger: deps.logger,
      metrics,
      now,
      heartbeatSeconds: config.grpc.heartbeatSeconds,
      helloTimeoutSeconds: config.grpc.helloTimeoutSeconds,
    };
    endpoint = await startGrpcEndpoint(config.grpc, agentServices(rpcDeps, ingest), deps.logger);
    const routes: Route[] = [
      ...observabilityRoutes(metricsRegistry, { ping: () => store.ping(), stopping: () => stopping }),
      ...opsRoutes({ runner, guard, context: { kinds: store.kinds } }),
      ...taskRoutes({ store, guard, ownerId: `cloudctl@${hostname()}` }),
      ...cacheRoutes({
        guard,
        refresh,
        introspection: { agents: store.agents, cache: store.cache, sessions, rate: ingest, now },
      }),
      ...agentAccountRoutes({ guard, store, sessions }),
      ...readModelRoutes({ guard, model: store.readModel, operations }),
      ...credentialsRoutes({
        store,
        directory,
        now,
        changed: (name, change) =>
          change === 'created' ? placement.created(name) : placement.placeEverywhere(),
      }),
      ...dynamicAccountsRoutes({ guard, store, sessions, placement, now }),
      ...deploymentRoutes({ runner: deployments, store: store.deployments, guard, now }),
      ...oauthRoutes({ store: store.oauth, now, tokenLifetimeSeconds: config.oauth.tokenLifetimeSeconds }),
      ...statusPageRoutes({
        guard,
        store,
        registry,
        sessions,
        placement,
        deploymentRunner: deployments,
        now,
      }),
      ...inapplicableRoutes(),
    ];
    http = await startHttpEndpoint(config.http, {
      routes,
      authenticator: new UserAuthenticator(
        [configUsers(config.users), oauthTokens(store.oauth, now)],
        config.auth,
      ),
      logger: deps.logger,
      metrics: metrics.http,
      now,
      version: pkg.version,
    });
  } catch (error) {
    await endpoint?.close();
    await store.close();
    throw error;
  }
  const resumed = await runner.resumeUnfinished();
  if (resumed > 0) deps.logger.info({ tasks: resumed }, 'carrying on tasks left unfinished by the last run');
  const resumedDeployments = await deployments.resumeUnfinished();
  if (resumedDeployments > 0)
    deps.logger.info(
      { deployments: resumedDeployments },
      'carrying on deployments left unfinished by the last run',
    );
  const httpEndpoint = http;
  const grpcPort = endpoint.port;
  const grpc = endpoint;
  return {
    port: grpcPort,
    httpPort: httpEndpoint.port,
    metrics,
    registry,
    operations,
    accounts: new AccountAssignments({ registry, store, now }),
    placement,
    store,
    directory,
    async close() {
      stopping = true;
      // HTTP first, so requests in flight finish while the agents' sessions still carry their work.
      await httpEndpoint.close();
      // Tasks stop where they are (they carry on at the next start); their waits end with the dispatcher.
      const tasksStopped = runner.close();
      const deploymentsStopped = deployments.close();
      operations.close();
      placement.close();
      await tasksStopped;
      await deploymentsStopped;
      await grpc.close();
      await replicas?.close();
      await store.close();
    },
  };
}
