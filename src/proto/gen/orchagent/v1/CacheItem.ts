// Original file: proto/orchagent/v1/caching.proto

import type { ResourceEvent as _orchagent_v1_ResourceEvent, ResourceEvent__Output as _orchagent_v1_ResourceEvent__Output } from '../../orchagent/v1/ResourceEvent.ts';
import type { SnapshotBegin as _orchagent_v1_SnapshotBegin, SnapshotBegin__Output as _orchagent_v1_SnapshotBegin__Output } from '../../orchagent/v1/SnapshotBegin.ts';
import type { SnapshotEnd as _orchagent_v1_SnapshotEnd, SnapshotEnd__Output as _orchagent_v1_SnapshotEnd__Output } from '../../orchagent/v1/SnapshotEnd.ts';
import type { Bookmark as _orchagent_v1_Bookmark, Bookmark__Output as _orchagent_v1_Bookmark__Output } from '../../orchagent/v1/Bookmark.ts';

export interface CacheItem {
  'event'?: (_orchagent_v1_ResourceEvent | null);
  'snapshotBegin'?: (_orchagent_v1_SnapshotBegin | null);
  'snapshotEnd'?: (_orchagent_v1_SnapshotEnd | null);
  'bookmark'?: (_orchagent_v1_Bookmark | null);
  'item'?: "event"|"snapshotBegin"|"snapshotEnd"|"bookmark";
}

export interface CacheItem__Output {
  'event'?: (_orchagent_v1_ResourceEvent__Output | null);
  'snapshotBegin'?: (_orchagent_v1_SnapshotBegin__Output | null);
  'snapshotEnd'?: (_orchagent_v1_SnapshotEnd__Output | null);
  'bookmark'?: (_orchagent_v1_Bookmark__Output | null);
  'item'?: "event"|"snapshotBegin"|"snapshotEnd"|"bookmark";
}
