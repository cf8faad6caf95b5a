// Original file: proto/orchagent/v1/session.proto


// Original file: proto/orchagent/v1/session.proto

export const _orchagent_v1_AccountStatus_State = {
  STATE_UNSPECIFIED: 'STATE_UNSPECIFIED',
  ACTIVE: 'ACTIVE',
  FAILED: 'FAILED',
} as const;

export type _orchagent_v1_AccountStatus_State =
  | 'STATE_UNSPECIFIED'
  | 0
  | 'ACTIVE'
  | 1
  | 'FAILED'
  | 2

export type _orchagent_v1_AccountStatus_State__Output = typeof _orchagent_v1_AccountStatus_State[keyof typeof _orchagent_v1_AccountStatus_State]

/**
 * The agent's view of one account: ACTIVE once it can reach the cluster, FAILED with a reason.
 */
export interface AccountStatus {
  'account'?: (string);
  'state'?: (_orchagent_v1_AccountStatus_State);
  'message'?: (string);
}

/**
 * The agent's view of one account: ACTIVE once it can reach the cluster, FAILED with a reason.
 */
export interface AccountStatus__Output {
  'account': (string);
  'state': (_orchagent_v1_AccountStatus_State__Output);
  'message': (string);
}
