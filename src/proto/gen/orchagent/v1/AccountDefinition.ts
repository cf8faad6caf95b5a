// Original file: proto/orchagent/v1/session.proto

import type { CacheDirective as _orchagent_v1_CacheDirective, CacheDirective__Output as _orchagent_v1_CacheDirective__Output } from '../../orchagent/v1/CacheDirective.ts';

/**
 * One account entry as the agent's config would hold it (`orchestrator.accounts[]`), as JSON. Secret
 * references (`encrypted:`, `encryptedFile:`) stay references; the agent resolves them.
 */
export interface AccountDefinition {
  'name'?: (string);
  'definition'?: (Buffer | Uint8Array | string);
  /**
   * Whether this agent caches the account or only runs its operations. Absent: cache as configured.
   */
  'cache'?: (_orchagent_v1_CacheDirective | null);
}

/**
 * One account entry as the agent's config would hold it (`orchestrator.accounts[]`), as JSON. Secret
 * references (`encrypted:`, `encryptedFile:`) stay references; the agent resolves them.
 */
export interface AccountDefinition__Output {
  'name': (string);
  'definition': (Buffer);
  /**
   * Whether this agent caches the account or only runs its operations. Absent: cache as configured.
   */
  'cache': (_orchagent_v1_CacheDirective__Output | null);
}
