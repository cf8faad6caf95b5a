// Original file: proto/orchagent/v1/session.proto


// Original file: proto/orchagent/v1/session.proto

export const _orchagent_v1_AccountStatus_State = {
  STATE_UNSPECIFIED: 'STATE_UNSPECIFIED',
  ACTIVE: 'ACTIVE',
  /**
   * The agent took the account but cannot serve it (the message says why, e.g. a kubeconfig error).
   */
  FAILED: 'FAILED',
  /**
   * The agent did not take a dynamic assignment: dynamic accounts are disabled, or its own static
   * account of the same name wins. It holds no dynamic account of that name.
   */
  REFUSED: 'REFUSED',
} as const;

export type _orchagent_v1_AccountStatus_State =
  | 'STATE_UNSPECIFIED'
  | 0
  | 'ACTIVE'
  | 1
  /**
   * The agent took the account but cannot serve it (the message says why, e.g. a kubeconfig error).
   */
  | 'FAILED'
  | 2
  /**
   * The agent did not take a dynamic assignment: dynamic accounts are disabled, or its own static
   * account of the same name wins. It holds no dynamic account of that name.
   */
  | 'REFUSED'
  | 3

export type _orchagent_v1_AccountStatus_State__Output = typeof _orchagent_v1_AccountStatus_State[keyof typeof _orchagent_v1_AccountStatus_State]

/**
 * The agent's view of one account: ACTIVE once it can reach the cluster, FAILED with a reason.
 */
export interface AccountStatus {
  'account'?: (string);
  'state'?: (_orchagent_v1_AccountStatus_State);
  'message'?: (string);
  /**
   * With ACTIVE: the account's cluster as the agent reached it (host and port of its API server, and
   * the server's version). Empty when unknown; a dynamic account has no hello to carry them.
   */
  'apiServerHost'?: (string);
  'kubernetesVersion'?: (string);
}

/**
 * The agent's view of one account: ACTIVE once it can reach the cluster, FAILED with a reason.
 */
export interface AccountStatus__Output {
  'account': (string);
  'state': (_orchagent_v1_AccountStatus_State__Output);
  'message': (string);
  /**
   * With ACTIVE: the account's cluster as the agent reached it (host and port of its API server, and
   * the server's version). Empty when unknown; a dynamic account has no hello to carry them.
   */
  'apiServerHost': (string);
  'kubernetesVersion': (string);
}
