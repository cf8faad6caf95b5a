// Original file: proto/orchagent/v1/caching.proto

import type { WatchScope as _orchagent_v1_WatchScope, WatchScope__Output as _orchagent_v1_WatchScope__Output } from '../../orchagent/v1/WatchScope.ts';

/**
 * The relist is complete: the control plane deletes every object of the scope that the snapshot did
 * not carry, and records `resource_version` (the list's) as the scope's resume version.
 */
export interface SnapshotEnd {
  'scope'?: (_orchagent_v1_WatchScope | null);
  'snapshotId'?: (string);
  'resourceVersion'?: (string);
}

/**
 * The relist is complete: the control plane deletes every object of the scope that the snapshot did
 * not carry, and records `resource_version` (the list's) as the scope's resume version.
 */
export interface SnapshotEnd__Output {
  'scope': (_orchagent_v1_WatchScope__Output | null);
  'snapshotId': (string);
  'resourceVersion': (string);
}
