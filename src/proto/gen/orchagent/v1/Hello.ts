// Original file: proto/orchagent/v1/session.proto

import type { Account as _orchagent_v1_Account, Account__Output as _orchagent_v1_Account__Output } from '../../orchagent/v1/Account.ts';
import type { DynamicAccounts as _orchagent_v1_DynamicAccounts, DynamicAccounts__Output as _orchagent_v1_DynamicAccounts__Output } from '../../orchagent/v1/DynamicAccounts.ts';
import type { Long } from '@grpc/proto-loader';

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
  /**
   * Whether and how the agent takes dynamic accounts (its dynamicAccounts settings).
   */
  'dynamicAccounts'?: (_orchagent_v1_DynamicAccounts | null);
  /**
   * How long the agent keeps trying to deliver one operation result (its responseRetries and their
   * backoff), in milliseconds; 0 when it does not retry. The control plane waits for a result at
   * least this long past the operation's deadline, so a retried result still finds someone waiting.
   */
  'resultRetryWindowMs'?: (number | string | Long);
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
  /**
   * Whether and how the agent takes dynamic accounts (its dynamicAccounts settings).
   */
  'dynamicAccounts': (_orchagent_v1_DynamicAccounts__Output | null);
  /**
   * How long the agent keeps trying to deliver one operation result (its responseRetries and their
   * backoff), in milliseconds; 0 when it does not retry. The control plane waits for a result at
   * least this long past the operation's deadline, so a retried result still finds someone waiting.
   */
  'resultRetryWindowMs': (string);
}
