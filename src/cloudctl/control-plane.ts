// Wires cloudctl together: config -> stores -> features -> transports (gRPC for agents, HTTP for
// people and tools). Each feature is one factory given only what it uses; they are listed in the
// order they depend on each other. The returned handle is what tests drive.
import type { Logger } from 'pino';
import pkg from '../../package.json' with { type: 'json' };
import { serviceDefinitions } from '../proto/index.ts';
import type { SecretEngine } from '../secrets/index.ts';
import { type AccountAssignments, type AccountDirectory, accountsFeature } from './accounts/index.ts';
import {
  AgentAuthenticator,
  configUsers,
  OidcProvider,
  oidcTokens,
  UserAuthenticator,
} from './auth/index.ts';
import { cachingFeature } from './caching/index.ts';
import { type CloudctlStores, openStores } from './cloudctl-stores.ts';
import type { CloudctlConfig } from './config/index.ts';
import {
  type CredentialsDefinition,
  credentialAccounts,
  credentialsRoutes,
  syncConfigAccounts,
} from './credentials/index.ts';
import { databaseTarget } from './database-target.ts';
import { type DeploymentsFeature, deploymentsFeature } from './deployments/index.ts';
import { type AccountPlacement, dynamicAccountsFeature } from './dynamic-accounts/index.ts';
import { externalAddress } from './external-address.ts';
import { type GrpcEndpoint, type GrpcService, startGrpcEndpoint } from './grpc/index.ts';
import { type HttpEndpoint, type Route, startHttpEndpoint } from './http/index.ts';
import { inapplicableRoutes } from './inapplicable/index.ts';
import { manifestsFeature } from './manifests/index.ts';
import { oauthRoutes, oauthTokens } from './oauth/index.ts';
import { type CloudctlMetrics, type Observability, observabilityFeature } from './observability/index.ts';
import { type OperationDispatcher, operationsFeature } from './operations/index.ts';
import { readModelRoutes } from './read-model/index.ts';
import { joinReplicas, type ReplicaHandlers, type ReplicaMembership } from './replicas/index.ts';
import { AgentRegistry, SessionFinder, sessionHandlers } from './sessions/index.ts';
import { statusPageRoutes } from './status-page/index.ts';
import type { DatabaseTarget } from './store/index.ts';
import { type TasksFeature, tasksFeature } from './tasks/index.ts';

export { databaseTarget } from './database-target.ts';

export interface ControlPlaneDeps {
  logger: Logger;
  now?: () => Date;
  /** False stores objects without the read model's index: only for measuring what the index costs. */
  readIndex?: boolean;
  /**
   * The engines built from `config.secrets` that resolved the config file's references; webhook
   * headers sent directly resolve with them too (`secretEngines` in config/ builds them).
   */
  secretEngines: ReadonlyArray<SecretEngine>;
  /** The accounts of cloudctl's config file, synced into the credentials store at start. */
  configAccounts?: { file: string; definitions: ReadonlyArray<CredentialsDefinition> };
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

/** The services' handlers, each built by its feature. */
interface AgentHandlers {
  session: GrpcService['handlers'];
  caching: GrpcService['handlers'];
  operationResults: GrpcService['handlers'];
}

function agentServices(handlers: AgentHandlers): GrpcService[] {
  const definitions = serviceDefinitions();
  return [
    { name: AGENT_SERVICES[0], definition: definitions.session, handlers: handlers.session },
    { name: AGENT_SERVICES[1], definition: definitions.caching, handlers: handlers.caching },
    {
      name: AGENT_SERVICES[2],
      definition: definitions.operationResults,
      handlers: handlers.operationResults,
    },
  ];
}

interface Endpoints {
  grpc: GrpcEndpoint;
  http: HttpEndpoint;
}

interface EndpointDeps {
  /** What started before the transports: stopped if one of them cannot start. */
  started: Started;
  services: GrpcService[];
  routes: Route[];
  metrics: CloudctlMetrics;
  logger: Logger;
  now: () => Date;
  /** Checks the JWTs of `auth.oidc`'s provider, when configured. */
  oidc: OidcProvider | undefined;
}

/**
 * Both transports, or neither: a failure to start one stops everything started before it (the
 * replica membership and its listening connection, the runners, the stores), so the process exits.
 */
async function startEndpoints(config: CloudctlConfig, deps: EndpointDeps): Promise<Endpoints> {
  const { logger, now } = deps;
  const { stores } = deps.started;
  let grpc: GrpcEndpoint | undefined;
  try {
    grpc = await startGrpcEndpoint(config.grpc, deps.services, logger);
    const authenticator = new UserAuthenticator(
      [
        configUsers(config.users),
        oauthTokens(stores.oauth, now),
        ...(deps.oidc === undefined ? [] : [oidcTokens(deps.oidc, now)]),
      ],
      config.auth,
    );
    const http = await startHttpEndpoint(config.http, {
      routes: deps.routes,
      authenticator,
      logger,
      metrics: deps.metrics.http,
      now,
      version: pkg.version,
    });
    return { grpc, http };
  } catch (error) {
    await stopStarted(deps.started, grpc);
    throw error;
  }
}

/** Work the last run left unfinished carries on, now that everything it may call exists. */
async function resumeUnfinished(
  tasks: { resumeUnfinished(): Promise<number> },
  deployments: { resumeUnfinished(): Promise<number> },
  logger: Logger,
): Promise<void> {
  const resumed = await tasks.resumeUnfinished();
  if (resumed > 0) logger.info({ tasks: resumed }, 'carrying on tasks left unfinished by the last run');
  const resumedDeployments = await deployments.resumeUnfinished();
  if (resumedDeployments > 0)
    logger.info(
      { deployments: resumedDeployments },
      'carrying on deployments left unfinished by the last run',
    );
}

/** What the other replicas' words set off here. */
function replicaHandlers(operations: OperationDispatcher, placement: AccountPlacement): ReplicaHandlers {
  return {
    deliver: (operationId, sessionId) => operations.deliver(operationId, sessionId),
    resultStored: (operationId) => operations.resultStoredElsewhere(operationId),
    recheck: () => operations.recheckWaiting(),
    place: (trigger) => placement.place(trigger),
  };
}

/** After a write through /credentials, accounts placed on agents follow their definitions. */
function credentialsChanged(placement: AccountPlacement) {
  return (name: string, change: string) =>
    change === 'created' ? placement.created(name) : placement.placeEverywhere();
}

/** What runs before the transports start. */
interface Started {
  tasks: TasksFeature;
  deployments: DeploymentsFeature;
  operations: OperationDispatcher;
  placement: AccountPlacement;
  replicas: ReplicaMembership | undefined;
  stores: CloudctlStores;
}

/** What `close` stops, in the order it stops them. */
interface Parts extends Started {
  observability: Observability;
  endpoints: Endpoints;
}

/** Stops what started before the transports, and the gRPC endpoint if it started, in order. */
async function stopStarted(started: Started, grpc: GrpcEndpoint | undefined): Promise<void> {
  // Tasks stop where they are (they carry on at the next start); their waits end with the dispatcher.
  const tasksStopped = started.tasks.runner.close();
  const deploymentsStopped = started.deployments.runner.close();
  started.operations.close();
  started.placement.close();
  await tasksStopped;
  await deploymentsStopped;
  await grpc?.close();
  await started.replicas?.close();
  await started.stores.close();
}

async function closeInOrder(parts: Parts): Promise<void> {
  parts.observability.stopping();
  // HTTP first, so requests in flight finish while the agents' sessions still carry their work.
  await parts.endpoints.http.close();
  await stopStarted(parts, parts.endpoints.grpc);
}

/** The handle tests drive: the parts' ports and services, and a close that stops them in order. */
function controlPlane(
  parts: Parts,
  rest: Pick<ControlPlane, 'metrics' | 'registry' | 'accounts' | 'directory'>,
): ControlPlane {
  const { endpoints, operations, placement, stores } = parts;
  return {
    ...rest,
    port: endpoints.grpc.port,
    httpPort: endpoints.http.port,
    operations,
    placement,
    store: stores,
    close: () => closeInOrder(parts),
  };
}

/** The stores, the accounts of cloudctl's config file synced in before anything reads them. */
async function openStoresWithConfigAccounts(
  target: DatabaseTarget,
  deps: ControlPlaneDeps,
  now: Date,
): Promise<CloudctlStores> {
  const stores = await openStores(target, { readIndex: deps.readIndex ?? true });
  if (deps.configAccounts === undefined) return stores;
  try {
    const { file, definitions } = deps.configAccounts;
    const changes = await syncConfigAccounts(stores.credentials, file, definitions, now);
    for (const { name, change } of changes)
      deps.logger.info({ account: name, change, file }, 'config file account');
  } catch (error) {
    await stores.close();
    throw error;
  }
  return stores;
}

export async function startControlPlane(
  config: CloudctlConfig,
  deps: ControlPlaneDeps,
): Promise<ControlPlane> {
  const { logger, now = () => new Date(), secretEngines } = deps;
  const target = databaseTarget(config.database);
  const stores = await openStoresWithConfigAccounts(target, deps, now());
  const registry = new AgentRegistry();
  const observability = observabilityFeature({ sessions: () => registry.list().length, ping: stores.ping });
  const { metrics } = observability;
  const replicas = await joinReplicas({ target, store: stores.replicas, registry, logger });
  const authenticator = new AgentAuthenticator(config.agents, logger);
  const oidc = config.auth.oidc === undefined ? undefined : new OidcProvider(config.auth.oidc, now);
  const { waitTimeoutMs } = config.operations;
  const base = { stores, registry, authenticator, metrics, logger, now, replicaId: replicas?.id };
  const ops = operationsFeature({ ...base, outcomes: metrics.operations, router: replicas, waitTimeoutMs });
  const operations = ops.dispatcher;
  // Where an account's session is, on this replica or another: what HTTP reads report.
  const sessions = new SessionFinder(registry, replicas);
  const accounts = accountsFeature({ ...base, lookups: [credentialAccounts(stores.credentials)], sessions });
  const { guard, directory } = accounts;
  const served = { ...base, guard, sessions, dispatcher: operations, reconnectGraceMs: waitTimeoutMs };
  const dynamic = await dynamicAccountsFeature({ ...served, replicas });
  const { placement } = dynamic;
  // Listens from here on: every handler it calls exists now.
  await replicas?.start(replicaHandlers(operations, placement));
  const caching = cachingFeature(served);
  const tasks = tasksFeature(served);
  const external = externalAddress(config.http);
  const deployments = deploymentsFeature({ ...served, externalUrl: external.url, secretEngines });
  const { heartbeatSeconds, helloTimeoutSeconds } = config.grpc;
  const sessionDeps = { heartbeatSeconds, helloTimeoutSeconds, sessionListener: placement, store: stores };
  const session = sessionHandlers({ ...base, ...sessionDeps, accountsDropped: caching.forgetAccounts });
  const { cache, kinds, readModel } = stores;
  const manifests = manifestsFeature({ cache, kinds, model: readModel, guard, operations });
  const changed = credentialsChanged(placement);
  const routes = [
    ...observability.routes,
    ...tasks.routes,
    ...caching.routes,
    ...accounts.routes,
    ...readModelRoutes({ guard, model: readModel, operations }),
    ...manifests.routes,
    ...credentialsRoutes({ store: stores, directory, now, changed }),
    ...dynamic.routes,
    ...deployments.routes,
    ...oauthRoutes({ store: stores.oauth, now, tokenLifetimeSeconds: config.oauth.tokenLifetimeSeconds }),
    ...statusPageRoutes({ ...served, store: stores, placement, deploymentRunner: deployments.runner, oidc }),
    ...inapplicableRoutes(),
  ];
  const services = agentServices({ session, caching: caching.handlers, operationResults: ops.handlers });
  const started = { tasks, deployments, operations, placement, replicas, stores };
  const endpoints = await startEndpoints(config, { ...base, started, services, routes, oidc });
  external.listening(endpoints.http.port);
  await resumeUnfinished(tasks.runner, deployments.runner, logger);
  const parts = { ...started, observability, endpoints };
  return controlPlane(parts, { metrics, registry, accounts: accounts.assignments, directory });
}
