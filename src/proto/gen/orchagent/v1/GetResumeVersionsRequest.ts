// Original file: proto/orchagent/v1/caching.proto

import type { Long } from '@grpc/proto-loader';

export interface GetResumeVersionsRequest {
  /**
   * The accounts to report; empty means every account of the calling agent.
   */
  'accounts'?: (string)[];
  /**
   * Omit versions stored longer ago than this (the account's maxResumableResourceAgeMs); 0 keeps all.
   */
  'maxAgeMs'?: (number | string | Long);
}

export interface GetResumeVersionsRequest__Output {
  /**
   * The accounts to report; empty means every account of the calling agent.
   */
  'accounts': (string)[];
  /**
   * Omit versions stored longer ago than this (the account's maxResumableResourceAgeMs); 0 keeps all.
   */
  'maxAgeMs': (string);
}
