// Original file: proto/orchagent/v1/operations.proto


// Original file: proto/orchagent/v1/operations.proto

export const _orchagent_v1_OperationResult_Outcome = {
  OUTCOME_UNSPECIFIED: 'OUTCOME_UNSPECIFIED',
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
} as const;

export type _orchagent_v1_OperationResult_Outcome =
  | 'OUTCOME_UNSPECIFIED'
  | 0
  | 'SUCCEEDED'
  | 1
  | 'FAILED'
  | 2

export type _orchagent_v1_OperationResult_Outcome__Output = typeof _orchagent_v1_OperationResult_Outcome[keyof typeof _orchagent_v1_OperationResult_Outcome]

export interface OperationResult {
  'operationId'?: (string);
  'account'?: (string);
  'outcome'?: (_orchagent_v1_OperationResult_Outcome);
  /**
   * The handler's result as JSON (empty when it has none).
   */
  'result'?: (Buffer | Uint8Array | string);
  /**
   * Why the operation failed, for FAILED: a message for people.
   */
  'error'?: (string);
  /**
   * For FAILED: one of the codes in src/contract/operation-errors.ts (NOT_FOUND, UNREACHABLE, ...),
   * so the control plane acts on the code and never parses the message. Empty from an agent that
   * predates it: read as FAILED.
   */
  'errorCode'?: (string);
  /**
   * For FAILED: the offending field of the payload or a manifest, when there is one.
   */
  'errorPath'?: (string);
}

export interface OperationResult__Output {
  'operationId': (string);
  'account': (string);
  'outcome': (_orchagent_v1_OperationResult_Outcome__Output);
  /**
   * The handler's result as JSON (empty when it has none).
   */
  'result': (Buffer);
  /**
   * Why the operation failed, for FAILED: a message for people.
   */
  'error': (string);
  /**
   * For FAILED: one of the codes in src/contract/operation-errors.ts (NOT_FOUND, UNREACHABLE, ...),
   * so the control plane acts on the code and never parses the message. Empty from an agent that
   * predates it: read as FAILED.
   */
  'errorCode': (string);
  /**
   * For FAILED: the offending field of the payload or a manifest, when there is one.
   */
  'errorPath': (string);
}
