// The operations feature's factory: the dispatcher that sends operations to the agent serving the
// account (or, through the router, to the replica holding its stream) and waits for their results,
// and the orchagent.v1.OperationResults handlers that record them.
import type { Logger } from 'pino';
import type { OperationResultsHandlers } from '../../proto/index.ts';
import type { AgentAuthenticator } from '../auth/index.ts';
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

export interface OperationsFeature {
  dispatcher: OperationDispatcher;
  handlers: OperationResultsHandlers;
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
  return {
    dispatcher,
    handlers: operationResultsHandlers({
      authenticator: deps.authenticator,
      dispatcher,
      store: stores,
      logger,
      now,
    }),
  };
}
