// Original file: proto/orchagent/v1/session.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.ts';
import type { Long } from '@grpc/proto-loader';

/**
 * Keep-alive in both directions. `sequence` counts up per sender and session, so a peer can see gaps.
 */
export interface Heartbeat {
  'sequence'?: (number | string | Long);
  'sentAt'?: (_google_protobuf_Timestamp | null);
}

/**
 * Keep-alive in both directions. `sequence` counts up per sender and session, so a peer can see gaps.
 */
export interface Heartbeat__Output {
  'sequence': (string);
  'sentAt': (_google_protobuf_Timestamp__Output | null);
}
