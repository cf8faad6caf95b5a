// Original file: proto/orchagent/v1/caching.proto

import type { Long } from '@grpc/proto-loader';

export interface CacheAck {
  'sequence'?: (number | string | Long);
}

export interface CacheAck__Output {
  'sequence': (string);
}
