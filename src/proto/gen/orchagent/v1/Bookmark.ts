// Original file: proto/orchagent/v1/caching.proto

import type { WatchScope as _orchagent_v1_WatchScope, WatchScope__Output as _orchagent_v1_WatchScope__Output } from '../../orchagent/v1/WatchScope.ts';

/**
 * The scope's watch has seen everything up to `resource_version` (a watch bookmark, or the version of
 * the last event the agent sent): the control plane records it as the scope's resume version.
 */
export interface Bookmark {
  'scope'?: (_orchagent_v1_WatchScope | null);
  'resourceVersion'?: (string);
}

/**
 * The scope's watch has seen everything up to `resource_version` (a watch bookmark, or the version of
 * the last event the agent sent): the control plane records it as the scope's resume version.
 */
export interface Bookmark__Output {
  'scope': (_orchagent_v1_WatchScope__Output | null);
  'resourceVersion': (string);
}
