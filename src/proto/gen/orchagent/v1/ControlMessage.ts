// Original file: proto/orchagent/v1/session.proto

import type { Registered as _orchagent_v1_Registered, Registered__Output as _orchagent_v1_Registered__Output } from '../../orchagent/v1/Registered.ts';
import type { Heartbeat as _orchagent_v1_Heartbeat, Heartbeat__Output as _orchagent_v1_Heartbeat__Output } from '../../orchagent/v1/Heartbeat.ts';
import type { Operation as _orchagent_v1_Operation, Operation__Output as _orchagent_v1_Operation__Output } from '../../orchagent/v1/Operation.ts';
import type { AddAccounts as _orchagent_v1_AddAccounts, AddAccounts__Output as _orchagent_v1_AddAccounts__Output } from '../../orchagent/v1/AddAccounts.ts';
import type { DeleteAccounts as _orchagent_v1_DeleteAccounts, DeleteAccounts__Output as _orchagent_v1_DeleteAccounts__Output } from '../../orchagent/v1/DeleteAccounts.ts';
import type { CacheDirectives as _orchagent_v1_CacheDirectives, CacheDirectives__Output as _orchagent_v1_CacheDirectives__Output } from '../../orchagent/v1/CacheDirectives.ts';

/**
 * Control plane to agent.
 */
export interface ControlMessage {
  'registered'?: (_orchagent_v1_Registered | null);
  'heartbeat'?: (_orchagent_v1_Heartbeat | null);
  'operation'?: (_orchagent_v1_Operation | null);
  'addAccounts'?: (_orchagent_v1_AddAccounts | null);
  'deleteAccounts'?: (_orchagent_v1_DeleteAccounts | null);
  'cacheDirectives'?: (_orchagent_v1_CacheDirectives | null);
  'message'?: "registered"|"heartbeat"|"operation"|"addAccounts"|"deleteAccounts"|"cacheDirectives";
}

/**
 * Control plane to agent.
 */
export interface ControlMessage__Output {
  'registered'?: (_orchagent_v1_Registered__Output | null);
  'heartbeat'?: (_orchagent_v1_Heartbeat__Output | null);
  'operation'?: (_orchagent_v1_Operation__Output | null);
  'addAccounts'?: (_orchagent_v1_AddAccounts__Output | null);
  'deleteAccounts'?: (_orchagent_v1_DeleteAccounts__Output | null);
  'cacheDirectives'?: (_orchagent_v1_CacheDirectives__Output | null);
  'message'?: "registered"|"heartbeat"|"operation"|"addAccounts"|"deleteAccounts"|"cacheDirectives";
}
