// Original file: proto/orchagent/v1/common.proto


/**
 * READ and WRITE role lists of an account, as the agent's config declares them.
 */
export interface Permissions {
  'read'?: (string)[];
  'write'?: (string)[];
}

/**
 * READ and WRITE role lists of an account, as the agent's config declares them.
 */
export interface Permissions__Output {
  'read': (string)[];
  'write': (string)[];
}
