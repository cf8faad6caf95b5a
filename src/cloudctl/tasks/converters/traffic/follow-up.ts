// What a deploy's strategy does after the deploy, as Orca's Kubernetes deploy stage does it: the
// other server groups of the new ReplicaSet's cluster in its namespace are disabled (redblack),
// disabled then deleted (highlander), or left alone (none). The plan is data; followUpOperations
// turns it into /ops operations once the caller knows the cluster's other versions.
import type { TrafficStrategy } from './traffic-request.ts';

export interface FollowUpPlan {
  strategy: TrafficStrategy;
  /** The deployed server group ("replicaSet web" as in the request, before any version suffix). */
  serverGroup?: { manifestName: string; namespace: string };
  disableOthers: boolean;
  deleteOthers: boolean;
}

export function planFor(strategy: TrafficStrategy, serverGroup?: FollowUpPlan['serverGroup']): FollowUpPlan {
  return {
    strategy,
    ...(serverGroup === undefined ? {} : { serverGroup }),
    disableOthers: strategy === 'redblack' || strategy === 'highlander',
    deleteOthers: strategy === 'highlander',
  };
}

/** A server group of the cluster: "replicaSet web-v001" and its namespace. */
export interface ClusterVersion {
  manifestName: string;
  namespace: string;
}

export type FollowUpOperation =
  | { disableManifest: { account: string; manifestName: string; location: string } }
  | {
      deleteManifest: {
        account: string;
        manifestName: string;
        location: string;
        options: { cascading: true };
      };
    };

/**
 * The operations that carry the plan out, in order: every disable, then every delete (Orca appends
 * them so). `deployed` is the new server group's final name ("replicaSet web-v002"); `versions` the
 * cluster's server groups; those of other namespaces and the deployed one itself are left alone.
 */
export function followUpOperations(
  plan: FollowUpPlan,
  account: string,
  deployed: ClusterVersion,
  versions: readonly ClusterVersion[],
): FollowUpOperation[] {
  const others = versions.filter(
    (v) => v.namespace === deployed.namespace && v.manifestName !== deployed.manifestName,
  );
  const target = (v: ClusterVersion) => ({ account, manifestName: v.manifestName, location: v.namespace });
  return [
    ...(plan.disableOthers ? others.map((v) => ({ disableManifest: target(v) })) : []),
    ...(plan.deleteOthers
      ? others.map((v) => ({ deleteManifest: { ...target(v), options: { cascading: true as const } } }))
      : []),
  ];
}
