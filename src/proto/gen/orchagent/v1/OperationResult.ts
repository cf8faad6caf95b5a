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
   * Why the operation failed, for FAILED.
   */
  'error'?: (string);
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
   * Why the operation failed, for FAILED.
   */
  'error': (string);
}
