// Original file: proto/orchagent/v1/caching.proto

import type { WatchScope as _orchagent_v1_WatchScope, WatchScope__Output as _orchagent_v1_WatchScope__Output } from '../../orchagent/v1/WatchScope.ts';

/**
 * A relist of one scope starts; the objects follow as ADDED events carrying `snapshot_id`.
 */
export interface SnapshotBegin {
  'scope'?: (_orchagent_v1_WatchScope | null);
  /**
   * Chosen by the agent, unique per relist.
   */
  'snapshotId'?: (string);
}

/**
 * A relist of one scope starts; the objects follow as ADDED events carrying `snapshot_id`.
 */
export interface SnapshotBegin__Output {
  'scope': (_orchagent_v1_WatchScope__Output | null);
  /**
   * Chosen by the agent, unique per relist.
   */
  'snapshotId': (string);
}
