// The operations feature's factory: the dispatcher that sends operations to the agent serving the
// account (or, through the router, to the replica holding its stream) and waits for their results,
// and the orchagent.v1.OperationResults service that records them. Stopping fails every wait, so work
// waiting for a result stops where it is (it carries on at the next start).
import type { Logger } from 'pino';
import { serviceDefinitions } from '../../proto/index.ts';
import type { AgentAuthenticator } from '../auth/index.ts';
import type { Feature } from '../feature.ts';
import type { GrpcService } from '../grpc/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import { OperationDispatcher } from './operation-dispatcher.ts';
import { operationResultsHandlers } from './operation-results-rpc.ts';
import type { OperationRouter } from './operation-router.ts';
import type { OperationStore } from './operation-store.ts';

export interface OperationsFeatureDeps {
  stores: { operations: OperationStore };
  registry: AgentRegistry;
  authenticator: AgentAuthenticator;
  /** Counts how each waited-for operation ended. */
  outcomes: { inc(labels: { type: string; outcome: string }): void };
  /** Other replicas' sessions; undefined for a single cloudctl. */
  router: OperationRouter | undefined;
  waitTimeoutMs: number;
  logger: Logger;
  now: () => Date;
}

export interface OperationsFeature extends Feature {
  dispatcher: OperationDispatcher;
  services: GrpcService[];
}

export function operationsFeature(deps: OperationsFeatureDeps): OperationsFeature {
  const { stores, logger, now } = deps;
  const dispatcher = new OperationDispatcher({
    registry: deps.registry,
    store: stores,
    logger,
    now,
    waitTimeoutMs: deps.waitTimeoutMs,
    onOutcome: (type, outcome) => deps.outcomes.inc({ type, outcome }),
    router: deps.router,
  });
  const handlers = operationResultsHandlers({
    authenticator: deps.authenticator,
    dispatcher,
    store: stores,
    logger,
    now,
  });
  return {
    name: 'operations',
    phase: 'services',
    dispatcher,
    services: [
      { name: 'orchagent.v1.OperationResults', definition: serviceDefinitions().operationResults, handlers },
    ],
    close: () => dispatcher.close(),
  };
}
