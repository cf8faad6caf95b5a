// The replicas feature's factory: on PostgreSQL, cloudctl is one of any number of replicas, and work
// for an account whose agent holds its stream with another replica goes there; the embedded database
// is single-node by nature, so there it joins nothing.
import type { Logger } from 'pino';
import type { AgentRegistry } from '../sessions/index.ts';
import type { DatabaseTarget } from '../store/index.ts';
import { startPostgresReplicaBus } from './postgres-replica-bus.ts';
import { ReplicaMembership } from './replica-membership.ts';
import { REPLICA_BEAT_MS, type ReplicaStore } from './replica-store.ts';

export interface JoinReplicasDeps {
  target: DatabaseTarget;
  store: ReplicaStore;
  registry: AgentRegistry;
  logger: Logger;
}

/** The membership, not yet listening (`start` it once its handlers exist); undefined on PGlite. */
export async function joinReplicas(deps: JoinReplicasDeps): Promise<ReplicaMembership | undefined> {
  const { target, store, registry, logger } = deps;
  if (target.kind !== 'postgres') return undefined;
  const bus = await startPostgresReplicaBus({
    url: target.url,
    notify: (channel, payload) => store.notify(channel, payload),
    logger,
  });
  return new ReplicaMembership({ store, bus, registry, logger, beatMs: REPLICA_BEAT_MS });
}
