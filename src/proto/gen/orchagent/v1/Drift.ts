// Original file: proto/orchagent/v1/caching.proto

import type { DriftingManager as _orchagent_v1_DriftingManager, DriftingManager__Output as _orchagent_v1_DriftingManager__Output } from '../../orchagent/v1/DriftingManager.ts';

/**
 * The field managers other than the agent's own (orch-agent, kubectl-client-side-apply) that own
 * fields of the object's content (outside metadata and status) and wrote after the agent did.
 */
export interface Drift {
  'managers'?: (_orchagent_v1_DriftingManager)[];
}

/**
 * The field managers other than the agent's own (orch-agent, kubectl-client-side-apply) that own
 * fields of the object's content (outside metadata and status) and wrote after the agent did.
 */
export interface Drift__Output {
  'managers': (_orchagent_v1_DriftingManager__Output)[];
}
