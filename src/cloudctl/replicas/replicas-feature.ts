// The replicas feature: on PostgreSQL, cloudctl is one of any number of replicas, and work for an
// account whose agent holds its stream with another replica goes there; the embedded database is
// single-node by nature, so there it joins nothing. Two steps, because the features that answer the
// other replicas' words take the membership when they are built: `replicaMembership` first (holding
// nothing open), then `replicasFeature` with their handlers, which listens from its start on, before
// agents can connect, and leaves after the agents' sessions have ended.
import type { Logger } from 'pino';
import type { Feature } from '../feature.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import type { DatabaseTarget } from '../store/index.ts';
import { postgresReplicaBus } from './postgres-replica-bus.ts';
import { type ReplicaHandlers, ReplicaMembership } from './replica-membership.ts';
import { REPLICA_BEAT_MS, type ReplicaStore } from './replica-store.ts';

export interface JoinReplicasDeps {
  target: DatabaseTarget;
  store: ReplicaStore;
  registry: AgentRegistry;
  logger: Logger;
}

/** This process's membership among the replicas, not yet listening; undefined on PGlite. */
export function replicaMembership(deps: JoinReplicasDeps): ReplicaMembership | undefined {
  const { target, store, registry, logger } = deps;
  if (target.kind !== 'postgres') return undefined;
  const bus = postgresReplicaBus({
    url: target.url,
    notify: (channel, payload) => store.notify(channel, payload),
    logger,
  });
  return new ReplicaMembership({ store, bus, registry, logger, beatMs: REPLICA_BEAT_MS });
}

export interface ReplicasFeatureDeps {
  membership: ReplicaMembership | undefined;
  /** What the other replicas' words set off here. */
  handlers: ReplicaHandlers;
}

export function replicasFeature(deps: ReplicasFeatureDeps): Feature {
  const { membership } = deps;
  if (membership === undefined) return { name: 'replicas', phase: 'replicas' };
  return {
    name: 'replicas',
    phase: 'replicas',
    start: async () => {
      try {
        await membership.start(deps.handlers);
      } catch (error) {
        // The error that stopped the start is the one to report; the listening connection must go.
        await membership.close().catch(() => undefined);
        throw error;
      }
    },
    close: () => membership.close(),
  };
}
