// Original file: proto/orchagent/v1/caching.proto

import type { CacheItem as _orchagent_v1_CacheItem, CacheItem__Output as _orchagent_v1_CacheItem__Output } from '../../orchagent/v1/CacheItem.ts';
import type { Long } from '@grpc/proto-loader';

export interface CacheBatch {
  /**
   * Counts up per stream; the acknowledgement names it.
   */
  'sequence'?: (number | string | Long);
  /**
   * Applied in order, in one transaction.
   */
  'items'?: (_orchagent_v1_CacheItem)[];
}

export interface CacheBatch__Output {
  /**
   * Counts up per stream; the acknowledgement names it.
   */
  'sequence': (string);
  /**
   * Applied in order, in one transaction.
   */
  'items': (_orchagent_v1_CacheItem__Output)[];
}
