// Original file: proto/orchagent/v1/session.proto

import type { Hello as _orchagent_v1_Hello, Hello__Output as _orchagent_v1_Hello__Output } from '../../orchagent/v1/Hello.ts';
import type { Heartbeat as _orchagent_v1_Heartbeat, Heartbeat__Output as _orchagent_v1_Heartbeat__Output } from '../../orchagent/v1/Heartbeat.ts';
import type { AccountStatus as _orchagent_v1_AccountStatus, AccountStatus__Output as _orchagent_v1_AccountStatus__Output } from '../../orchagent/v1/AccountStatus.ts';

/**
 * Agent to control plane.
 */
export interface AgentMessage {
  'hello'?: (_orchagent_v1_Hello | null);
  'heartbeat'?: (_orchagent_v1_Heartbeat | null);
  'accountStatus'?: (_orchagent_v1_AccountStatus | null);
  'message'?: "hello"|"heartbeat"|"accountStatus";
}

/**
 * Agent to control plane.
 */
export interface AgentMessage__Output {
  'hello'?: (_orchagent_v1_Hello__Output | null);
  'heartbeat'?: (_orchagent_v1_Heartbeat__Output | null);
  'accountStatus'?: (_orchagent_v1_AccountStatus__Output | null);
  'message'?: "hello"|"heartbeat"|"accountStatus";
}
