// Original file: proto/orchagent/v1/session.proto


/**
 * Accounts the agent must stop serving: stop their watches and refuse their operations.
 */
export interface DeleteAccounts {
  'names'?: (string)[];
}

/**
 * Accounts the agent must stop serving: stop their watches and refuse their operations.
 */
export interface DeleteAccounts__Output {
  'names': (string)[];
}
