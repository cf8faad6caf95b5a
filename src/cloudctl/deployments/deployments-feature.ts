// The deployments feature's factory: the runner that carries deployments through their steps (with
// webhooks sent from cloudctl or from an agent holding the account, and each approval and awaited
// webhook showing the plan of the step after it), and the deployment routes; it registers with the
// plans feature what applying a deployment's plan means. Stopping stops every run where it is; an
// unfinished deployment carries on at the next start.
import type { Logger } from 'pino';
import type { SecretEngine } from '../../secrets/index.ts';
import type { AccountGuard } from '../accounts/index.ts';
import type { PrometheusProvider } from '../config/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { OperationDispatcher, OperationStore } from '../operations/index.ts';
import type { Planner } from '../plans/index.ts';
import type { PreviewLinks } from '../previews/index.ts';
import { type LeaseSource, REPLICA_BEAT_MS, REPLICA_LEASE_MS } from '../replicas/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import { deploymentApplier, deploymentPlanner } from './deployment-plans.ts';
import { deploymentRoutes } from './http/deployment-routes.ts';
import { DeploymentRunner, type DeploymentStore, metricProviders, webhookSender } from './run/index.ts';
import { directWebhookTransport } from './webhook/direct-webhook-transport.ts';
import { webhookSecrets } from './webhook/webhook-secrets.ts';

export interface DeploymentsFeatureDeps {
  stores: { deployments: DeploymentStore; operations: OperationStore; leases: LeaseSource };
  dispatcher: OperationDispatcher;
  registry: AgentRegistry;
  guard: AccountGuard;
  /** Where people and webhook jobs reach this cloudctl's HTTP API; known once it listens. */
  externalUrl: () => string;
  logger: Logger;
  now: () => Date;
  /** How long a deployment carried on after a restart waits for its agent to reconnect. */
  reconnectGraceMs: number;
  /** This replica's id; undefined for one cloudctl on its embedded database. */
  replicaId: string | undefined;
  /** cloudctl's secret engines (its config's `secrets.store`), for headers of webhooks sent directly. */
  secretEngines: ReadonlyArray<SecretEngine>;
  /** The plans feature: gates' and files' plans are made and applied through it. */
  plans: { planner: Pick<Planner, 'plan' | 'markApplied' | 'registerApplier'> };
  /** cloudctl's config's `analysis.providers`: what analysis steps may name besides `builtin`. */
  analysisProviders: readonly PrometheusProvider[];
  /** The previews feature: exposeServices steps open preview URLs, the record lists them. */
  previews: PreviewLinks;
}

export interface DeploymentsFeature extends Feature {
  runner: DeploymentRunner;
  routes: Route[];
}

export function deploymentsFeature(deps: DeploymentsFeatureDeps): DeploymentsFeature {
  const { stores, dispatcher, registry, logger, now } = deps;
  const runner = new DeploymentRunner({
    store: stores.deployments,
    dispatcher,
    operationStored: async (id) => (await stores.operations.get(id)) !== undefined,
    webhooks: webhookSender({
      direct: directWebhookTransport(),
      onAgent: (account) => (type, payload) => dispatcher.execute({ account, type, payload }),
      accountOfAgent: (agentId) => registry.newestSessionOf(agentId)?.accounts[0]?.name,
      secrets: webhookSecrets(deps.secretEngines),
      logger,
    }),
    callbackBase: () => `${deps.externalUrl()}/deployments/callbacks`,
    planner: deploymentPlanner(deps.plans.planner, deps.externalUrl),
    leases: stores.leases.leases('deployment', deps.replicaId ?? 'cloudctl', REPLICA_LEASE_MS),
    sweepMs: REPLICA_BEAT_MS,
    reconnectGraceMs: deps.reconnectGraceMs,
    metricProviders: metricProviders(deps.analysisProviders),
    previews: deps.previews,
    logger,
    now,
  });
  deps.plans.planner.registerApplier('deployment', deploymentApplier({ runner, store: stores.deployments }));
  return {
    name: 'deployments',
    phase: 'services',
    runner,
    routes: deploymentRoutes({
      runner,
      store: stores.deployments,
      guard: deps.guard,
      now,
      previews: deps.previews,
    }),
    close: () => runner.close(),
  };
}
