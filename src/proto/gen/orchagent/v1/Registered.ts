// Original file: proto/orchagent/v1/session.proto

import type { CacheDirective as _orchagent_v1_CacheDirective, CacheDirective__Output as _orchagent_v1_CacheDirective__Output } from '../../orchagent/v1/CacheDirective.ts';

/**
 * Reply to hello: the session is registered, and this is what to cache.
 */
export interface Registered {
  /**
   * Names this session in the control plane's logs.
   */
  'sessionId'?: (string);
  'cache'?: (_orchagent_v1_CacheDirective)[];
}

/**
 * Reply to hello: the session is registered, and this is what to cache.
 */
export interface Registered__Output {
  /**
   * Names this session in the control plane's logs.
   */
  'sessionId': (string);
  'cache': (_orchagent_v1_CacheDirective__Output)[];
}
