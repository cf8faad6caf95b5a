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
