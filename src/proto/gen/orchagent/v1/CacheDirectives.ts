// Original file: proto/orchagent/v1/session.proto

import type { CacheDirective as _orchagent_v1_CacheDirective, CacheDirective__Output as _orchagent_v1_CacheDirective__Output } from '../../orchagent/v1/CacheDirective.ts';

/**
 * Changes what the agent caches for accounts it already holds (e.g. the caching agent went away and
 * this one takes over). Accounts not named keep their current directive.
 */
export interface CacheDirectives {
  'directives'?: (_orchagent_v1_CacheDirective)[];
}

/**
 * Changes what the agent caches for accounts it already holds (e.g. the caching agent went away and
 * this one takes over). Accounts not named keep their current directive.
 */
export interface CacheDirectives__Output {
  'directives': (_orchagent_v1_CacheDirective__Output)[];
}
