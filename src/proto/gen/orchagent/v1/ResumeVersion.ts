// Original file: proto/orchagent/v1/caching.proto

import type { WatchScope as _orchagent_v1_WatchScope, WatchScope__Output as _orchagent_v1_WatchScope__Output } from '../../orchagent/v1/WatchScope.ts';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.ts';

export interface ResumeVersion {
  'scope'?: (_orchagent_v1_WatchScope | null);
  'resourceVersion'?: (string);
  'updatedAt'?: (_google_protobuf_Timestamp | null);
}

export interface ResumeVersion__Output {
  'scope': (_orchagent_v1_WatchScope__Output | null);
  'resourceVersion': (string);
  'updatedAt': (_google_protobuf_Timestamp__Output | null);
}
