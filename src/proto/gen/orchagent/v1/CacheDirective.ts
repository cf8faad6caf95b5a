// Original file: proto/orchagent/v1/session.proto


/**
 * What the agent should cache for one account. Empty `kinds` and `omit_kinds` leave the agent's own
 * configuration (`kinds`, `omitKinds`) in force.
 */
export interface CacheDirective {
  'account'?: (string);
  /**
   * false: send no resource events for this account (operations still run).
   */
  'enabled'?: (boolean);
  'kinds'?: (string)[];
  'omitKinds'?: (string)[];
}

/**
 * What the agent should cache for one account. Empty `kinds` and `omit_kinds` leave the agent's own
 * configuration (`kinds`, `omitKinds`) in force.
 */
export interface CacheDirective__Output {
  'account': (string);
  /**
   * false: send no resource events for this account (operations still run).
   */
  'enabled': (boolean);
  'kinds': (string)[];
  'omitKinds': (string)[];
}
