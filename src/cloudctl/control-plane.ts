// Wires cloudctl together: config -> store -> registry, dispatcher -> gRPC endpoint. The returned
// handle is what tests drive and what the REST API and deployment service will be given.
import type { Logger } from 'pino';
import type { CloudctlConfig } from './config/index.ts';
import {
  AccountAssignments,
  AgentRegistry,
  Authenticator,
  type GrpcEndpoint,
  OperationDispatcher,
  startGrpcEndpoint,
} from './grpc/index.ts';
import { type CloudctlStore, type DatabaseTarget, openStore } from './store/index.ts';

export interface ControlPlaneDeps {
  logger: Logger;
  now?: () => Date;
}

export interface ControlPlane {
  port: number;
  registry: AgentRegistry;
  operations: OperationDispatcher;
  /** Dynamic accounts: assigns accounts to a connected agent at run time. */
  accounts: AccountAssignments;
  store: CloudctlStore;
  close(): Promise<void>;
}

export function databaseTarget(database: CloudctlConfig['database']): DatabaseTarget {
  if (database.url !== undefined) return { kind: 'postgres', url: database.url };
  return { kind: 'pglite', dataDir: database.dataDir ?? 'memory://' };
}

export async function startControlPlane(
  config: CloudctlConfig,
  deps: ControlPlaneDeps,
): Promise<ControlPlane> {
  const now = deps.now ?? (() => new Date());
  const store = await openStore(databaseTarget(config.database));
  const registry = new AgentRegistry();
  const operations = new OperationDispatcher({
    registry,
    store,
    logger: deps.logger,
    now,
    waitTimeoutMs: config.operations.waitTimeoutMs,
  });
  let endpoint: GrpcEndpoint;
  try {
    endpoint = await startGrpcEndpoint(config.grpc, {
      authenticator: new Authenticator(config.agents, deps.logger),
      registry,
      store,
      dispatcher: operations,
      logger: deps.logger,
      now,
      heartbeatSeconds: config.grpc.heartbeatSeconds,
      helloTimeoutSeconds: config.grpc.helloTimeoutSeconds,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    port: endpoint.port,
    registry,
    operations,
    accounts: new AccountAssignments({ registry, store, now }),
    store,
    async close() {
      operations.close();
      await endpoint.close();
      await store.close();
    },
  };
}
