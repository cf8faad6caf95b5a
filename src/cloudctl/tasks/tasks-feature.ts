// The tasks feature's factory: the runner that carries POST /ops tasks on (across restarts, and
// across replicas through task leases), the routes that start, read and restart them, and the list of the
// artifact accounts their deploys read artifacts from. Stopping stops every task where it is; an
// unfinished task carries on at the next start.
import type { Logger } from 'pino';
import type { AccountGuard } from '../accounts/index.ts';
import { artifactRoutes } from '../artifacts/index.ts';
import type { CacheStore, KindResolver } from '../caching/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { OperationDispatcher, OperationStore } from '../operations/index.ts';
import type { ReadModel } from '../read-model/index.ts';
import { type LeaseSource, REPLICA_BEAT_MS, REPLICA_LEASE_MS } from '../replicas/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import { agentClusterReads } from './agent-cluster-reads.ts';
import { clusterLookups } from './cluster-lookups.ts';
import type { DeployRecords } from './deploy-records.ts';
import { operationsToSteps, type StepsOf } from './operation-steps.ts';
import { opsRoutes } from './ops-routes.ts';
import { taskRecoveryRoutes } from './task-recovery-routes.ts';
import { taskRoutes } from './task-routes.ts';
import { TaskRunner } from './task-runner.ts';
import type { TaskStore } from './task-store.ts';
import { SINGLE_OWNER } from './task-tables.ts';

export interface TasksFeatureDeps {
  stores: {
    tasks: TaskStore;
    operations: OperationStore;
    leases: LeaseSource;
    kinds: KindResolver;
    /** What converters read of the cluster: objects from the cache, pods from the read model. */
    cache: Pick<CacheStore, 'object'>;
    readModel: Pick<ReadModel, 'find' | 'ownedBy'>;
    /** Told of each deploy step that succeeded: what cloudctl deployed (drift/). */
    deployed?: DeployRecords;
  };
  dispatcher: OperationDispatcher;
  registry: AgentRegistry;
  guard: AccountGuard;
  logger: Logger;
  now: () => Date;
  /** How long a task carried on after a restart waits for its agent to reconnect. */
  reconnectGraceMs: number;
  /** This replica's id; undefined for one cloudctl on its embedded database. */
  replicaId: string | undefined;
}

export interface TasksFeature extends Feature {
  runner: TaskRunner;
  routes: Route[];
  /** A request's operations as task steps, converted as POST /ops converts them (plans dry-run them). */
  stepsOf: StepsOf;
}

export function tasksFeature(deps: TasksFeatureDeps): TasksFeature {
  const { stores, guard } = deps;
  // One cloudctl on its embedded database is always the same owner, so its restart carries its
  // tasks on at once; a replica is a new owner and takes over a dead one's after the lease.
  const owner = deps.replicaId ?? SINGLE_OWNER;
  const runner = new TaskRunner({
    store: stores,
    dispatcher: deps.dispatcher,
    registry: deps.registry,
    logger: deps.logger,
    now: deps.now,
    reconnectGraceMs: deps.reconnectGraceMs,
    leases: stores.leases.leases('task', owner, REPLICA_LEASE_MS),
    owner,
    sweepMs: REPLICA_BEAT_MS,
  });
  const context = {
    kinds: stores.kinds,
    cluster: agentClusterReads(deps.dispatcher, deps.registry, deps.now),
    cache: clusterLookups(stores),
  };
  return {
    name: 'tasks',
    phase: 'services',
    runner,
    stepsOf: (body, user, access) => operationsToSteps(body, user, access, { guard, context }),
    close: () => runner.close(),
    routes: [
      ...opsRoutes({ runner, guard, context }),
      ...taskRoutes({ store: stores, guard }),
      ...taskRecoveryRoutes({ runner, store: stores, guard }),
      ...artifactRoutes(),
    ],
  };
}
