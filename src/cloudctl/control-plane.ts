// Wires cloudctl together: config -> stores -> features -> transports (gRPC for agents, HTTP for
// people and tools) -> the work the last run left unfinished. Every part is a feature (feature.ts):
// one factory given only what it uses, listed in the order they depend on each other; their phases
// order the start, and the stop in reverse. The returned handle is what tests drive.
import type { Logger } from 'pino';
import type { SecretEngine } from '../secrets/index.ts';
import { type AccountAssignments, type AccountDirectory, accountsFeature } from './accounts/index.ts';
import {
  AgentAuthenticator,
  CredentialRevocations,
  configUsers,
  OidcProvider,
  oidcTokens,
  UserAuthenticator,
} from './auth/index.ts';
import { cachingFeature } from './caching/index.ts';
import { type CloudctlStores, openStores, storesFeature } from './cloudctl-stores.ts';
import type { CloudctlConfig } from './config/index.ts';
import {
  type CredentialsDefinition,
  credentialAccounts,
  credentialsFeature,
  syncConfigAccounts,
} from './credentials/index.ts';
import { databaseTarget } from './database-target.ts';
import { deploymentsFeature } from './deployments/index.ts';
import { driftFeature } from './drift/index.ts';
import { type AccountPlacement, dynamicAccountsFeature } from './dynamic-accounts/index.ts';
import { type ExternalAddress, externalAddress } from './external-address.ts';
import { type Feature, routesOf, servicesOf, startFeatures, stopOnFailure } from './feature.ts';
import { inapplicableFeature } from './inapplicable/index.ts';
import { manifestsFeature } from './manifests/index.ts';
import { agentCredentials, type OAuthStore, oauthFeature, oauthTokens } from './oauth/index.ts';
import { type CloudctlMetrics, observabilityFeature } from './observability/index.ts';
import { type OperationDispatcher, operationsFeature } from './operations/index.ts';
import { plansFeature } from './plans/index.ts';
import { previewsFeature } from './previews/index.ts';
import { readModelFeature } from './read-model/index.ts';
import { type ReplicaHandlers, replicaMembership, replicasFeature } from './replicas/index.ts';
import { resumeFeature } from './resume-feature.ts';
import { AgentRegistry, SessionFinder, sessionsFeature } from './sessions/index.ts';
import { statusPageFeature, withPageApi } from './status-page/index.ts';
import type { DatabaseTarget } from './store/index.ts';
import { tasksFeature } from './tasks/index.ts';
import { grpcFeature, type HttpFeatureDeps, httpFeature } from './transports.ts';
import { watchFeature } from './watch/index.ts';

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

/** Who may call the HTTP API: the config's users, OAuth clients' tokens, and the OIDC provider's JWTs. */
function userAuthenticator(
  config: CloudctlConfig,
  oauth: OAuthStore,
  oidc: OidcProvider | undefined,
  now: () => Date,
): UserAuthenticator {
  const sources = [configUsers(config.users), oauthTokens(oauth, now)];
  return new UserAuthenticator(
    oidc === undefined ? sources : [...sources, oidcTokens(oidc, now)],
    config.auth,
  );
}

/**
 * Who may connect as an agent: those of the config file, and those a credential made at runtime
 * proves (POST /clients); and the OAuth feature that makes those credentials and, revoking or
 * rotating one, ends the agent streams open with it.
 */
function agentsAndCredentials(
  config: CloudctlConfig,
  store: OAuthStore,
  external: ExternalAddress,
  logger: Logger,
  now: () => Date,
) {
  const revocations = new CredentialRevocations();
  const runtime = { source: agentCredentials(store, now), revocations };
  return {
    authenticator: new AgentAuthenticator(config.agents, logger, runtime),
    oauth: oauthFeature({ store, now, config, externalUrl: external.url, revocations }),
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

/**
 * The parts the features are made of, in dependency order: the stores, the agents' registry and who
 * may connect, the dispatcher, the accounts' guard, and the features others lean on.
 */
async function buildParts(config: CloudctlConfig, deps: ControlPlaneDeps) {
  const { logger, now = () => new Date(), secretEngines } = deps;
  const target = databaseTarget(config.database);
  const stores = await openStoresWithConfigAccounts(target, deps, now());
  const registry = new AgentRegistry();
  const observability = observabilityFeature({ sessions: () => registry.list().length, ping: stores.ping });
  const { metrics } = observability;
  const membership = replicaMembership({ target, store: stores.replicas, registry, logger });
  const external = externalAddress(config.http);
  const { authenticator, oauth } = agentsAndCredentials(config, stores.oauth, external, logger, now);
  const oidc = config.auth.oidc === undefined ? undefined : new OidcProvider(config.auth.oidc, now);
  const { waitTimeoutMs } = config.operations;
  const base = { stores, registry, authenticator, metrics, logger, now, replicaId: membership?.id };
  const ops = operationsFeature({ ...base, outcomes: metrics.operations, router: membership, waitTimeoutMs });
  const operations = ops.dispatcher;
  // Where an account's session is, on this replica or another: what HTTP reads report.
  const sessions = new SessionFinder(registry, membership);
  const accounts = accountsFeature({ ...base, lookups: [credentialAccounts(stores.credentials)], sessions });
  const { guard } = accounts;
  const served = { ...base, guard, sessions, dispatcher: operations, reconnectGraceMs: waitTimeoutMs };
  const store = storesFeature(stores);
  const dynamic = await dynamicAccountsFeature({ ...served, replicas: membership }).catch(
    stopOnFailure([store], logger),
  );
  const tasks = tasksFeature(served);
  const plans = plansFeature({ ...served, tasks, settings: config.plans });
  const previews = previewsFeature({ ...served, externalUrl: external.url });
  const analysisProviders = config.analysis.providers;
  const deployments = deploymentsFeature({
    ...served,
    analysisProviders,
    plans,
    previews: previews.links,
    externalUrl: external.url,
    secretEngines,
  });
  return {
    ...{ base, served, store, observability, membership, external, oauth, oidc, ops, accounts },
    ...{ dynamic, tasks, plans, previews, deployments },
  };
}

export async function startControlPlane(
  config: CloudctlConfig,
  deps: ControlPlaneDeps,
): Promise<ControlPlane> {
  const parts = await buildParts(config, deps);
  const { base, served, store, observability, membership, external, oauth, oidc, ops, accounts } = parts;
  const { dynamic, tasks, plans, previews, deployments } = parts;
  const { stores, registry, logger, now } = base;
  const { guard, directory } = accounts;
  const { placement } = dynamic;
  const operations = ops.dispatcher;
  const caching = cachingFeature(served);
  const { heartbeatSeconds, helloTimeoutSeconds } = config.grpc;
  const retireAfterSeconds = config.agentRetirement.notSeenForSeconds;
  const sessionDeps = { heartbeatSeconds, helloTimeoutSeconds, retireAfterSeconds, store: stores };
  const features = [
    store,
    observability,
    replicasFeature({ membership, handlers: replicaHandlers(operations, placement) }),
    ops,
    accounts,
    dynamic,
    caching,
    tasks,
    plans,
    previews,
    deployments,
    sessionsFeature({
      ...{ ...base, ...sessionDeps, sessions: served.sessions, sessionListener: placement },
      accountsDropped: caching.forgetAccounts,
    }),
    manifestsFeature({ stores, guard, operations }),
    driftFeature({ stores, guard, planner: plans.planner }),
    readModelFeature({ stores, guard, operations }),
    credentialsFeature({ store: stores, directory, now, changed: credentialsChanged(placement) }),
    oauth,
    statusPageFeature({
      ...{ ...served, store: stores, placement, deployments, plans, oidc, oauth },
      previews: previews.links,
    }),
    inapplicableFeature(),
    watchFeature({ ...base, guard, settings: config.watch, replicas: membership }),
  ];
  const users = userAuthenticator(config, stores.oauth, oidc, now);
  const resume = resumeFeature({ tasks: tasks.runner, deployments: deployments.runner, logger });
  const endpoints = await startWithEndpoints(config, features, resume, {
    api: { authenticator: users, metrics: observability.metrics.http, logger, now, address: external },
  });
  const metrics = observability.metrics;
  const exposed = { metrics, registry, operations, placement, directory, store: stores };
  return { ...exposed, ...endpoints, accounts: accounts.assignments };
}

/**
 * The agents' gRPC endpoint and the HTTP API over what the features contribute, then every part
 * started in its phase (the unfinished work resumed last, once all it may call listens).
 */
async function startWithEndpoints(
  config: CloudctlConfig,
  features: readonly Feature[],
  resume: Feature,
  deps: { api: Omit<HttpFeatureDeps, 'routes'> },
): Promise<{ port: number; httpPort: number; close: () => Promise<void> }> {
  const { logger } = deps.api;
  const grpc = grpcFeature(config.grpc, { services: servicesOf(features), logger });
  const http = httpFeature(config.http, { ...deps.api, routes: withPageApi(routesOf(features)) });
  const { stop } = await startFeatures([...features, grpc, http, resume], logger);
  return { port: grpc.port(), httpPort: http.port(), close: stop };
}
