// Original file: proto/orchagent/v1/session.proto


/**
 * One account entry as the agent's config would hold it (`orchestrator.accounts[]`), as JSON.
 */
export interface AccountDefinition {
  'name'?: (string);
  'definition'?: (Buffer | Uint8Array | string);
}

/**
 * One account entry as the agent's config would hold it (`orchestrator.accounts[]`), as JSON.
 */
export interface AccountDefinition__Output {
  'name': (string);
  'definition': (Buffer);
}
