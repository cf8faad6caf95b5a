// Wires cloudctl together: config -> store -> features -> transports (gRPC for agents). The
// returned handle is what tests drive and what the HTTP API and deployment service are given.
import type { Logger } from 'pino';
import { serviceDefinitions } from '../proto/index.ts';
import { AccountAssignments } from './accounts/index.ts';
import { AgentAuthenticator } from './auth/index.ts';
import { cachingHandlers } from './caching/index.ts';
import type { CloudctlConfig } from './config/index.ts';
import { type GrpcEndpoint, type GrpcService, type RpcDeps, startGrpcEndpoint } from './grpc/index.ts';
import { OperationDispatcher, operationResultsHandlers } from './operations/index.ts';
import { AgentRegistry, sessionHandlers } from './sessions/index.ts';
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

/** The orchagent.v1 services agents call, each a feature's thin adapter. */
export const AGENT_SERVICES = [
  'orchagent.v1.AgentSession',
  'orchagent.v1.Caching',
  'orchagent.v1.OperationResults',
] as const;

function agentServices(deps: RpcDeps): GrpcService[] {
  const definitions = serviceDefinitions();
  return [
    { name: AGENT_SERVICES[0], definition: definitions.session, handlers: sessionHandlers(deps) },
    { name: AGENT_SERVICES[1], definition: definitions.caching, handlers: cachingHandlers(deps) },
    {
      name: AGENT_SERVICES[2],
      definition: definitions.operationResults,
      handlers: operationResultsHandlers(deps),
    },
  ];
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
    const rpcDeps: RpcDeps = {
      authenticator: new AgentAuthenticator(config.agents, deps.logger),
      registry,
      store,
      dispatcher: operations,
      logger: deps.logger,
      now,
      heartbeatSeconds: config.grpc.heartbeatSeconds,
      helloTimeoutSeconds: config.grpc.helloTimeoutSeconds,
    };
    endpoint = await startGrpcEndpoint(config.grpc, agentServices(rpcDeps), deps.logger);
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
