// Original file: proto/orchagent/v1/session.proto

import type { Account as _orchagent_v1_Account, Account__Output as _orchagent_v1_Account__Output } from '../../orchagent/v1/Account.ts';

/**
 * Registration. `agent_id` must match the identity the credentials prove (token entry or client
 * certificate common name).
 */
export interface Hello {
  'agentId'?: (string);
  /**
   * The agent's release, such as "0.1.0".
   */
  'version'?: (string);
  'zoneId'?: (string);
  'accounts'?: (_orchagent_v1_Account)[];
  /**
   * Replicas of the agent's deployment (for the agents screen; each replica has its own session).
   */
  'replicaCount'?: (number);
}

/**
 * Registration. `agent_id` must match the identity the credentials prove (token entry or client
 * certificate common name).
 */
export interface Hello__Output {
  'agentId': (string);
  /**
   * The agent's release, such as "0.1.0".
   */
  'version': (string);
  'zoneId': (string);
  'accounts': (_orchagent_v1_Account__Output)[];
  /**
   * Replicas of the agent's deployment (for the agents screen; each replica has its own session).
   */
  'replicaCount': (number);
}
