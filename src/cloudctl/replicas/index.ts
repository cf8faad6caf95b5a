// Replicas: several cloudctl processes on one PostgreSQL. Each records the agent sessions it holds;
// work for an account that arrives at one replica is sent by the replica holding the agent's stream.

export { type LeaseSource, LeaseStore, type Leases, type MovableLeases } from './lease-store.ts';
export { LeaseSweeper, type LeaseSweeperOptions } from './lease-sweeper.ts';
export { postgresReplicaBus } from './postgres-replica-bus.ts';
export { ProcessLeaseStore } from './process-leases.ts';
export type { ReplicaBus } from './replica-bus.ts';
export {
  type ReplicaHandlers,
  ReplicaMembership,
  type ReplicaMembershipDeps,
} from './replica-membership.ts';
export {
  type PublishedSession,
  REPLICA_BEAT_MS,
  REPLICA_LEASE_MS,
  ReplicaStore,
  type SessionHolder,
} from './replica-store.ts';
export { type ReplicaTables, replicaMigration } from './replica-tables.ts';
export {
  type JoinReplicasDeps,
  type ReplicasFeatureDeps,
  replicaMembership,
  replicasFeature,
} from './replicas-feature.ts';
