// Original file: proto/orchagent/v1/session.proto

import type { AccountDefinition as _orchagent_v1_AccountDefinition, AccountDefinition__Output as _orchagent_v1_AccountDefinition__Output } from '../../orchagent/v1/AccountDefinition.ts';

/**
 * Accounts assigned to the agent on the fly (dynamic accounts).
 */
export interface AddAccounts {
  'accounts'?: (_orchagent_v1_AccountDefinition)[];
}

/**
 * Accounts assigned to the agent on the fly (dynamic accounts).
 */
export interface AddAccounts__Output {
  'accounts': (_orchagent_v1_AccountDefinition__Output)[];
}
