// The agent <-> cloudctl contract that is not in the .proto files: the JSON both programs put inside
// them. The account definition, the names drift is read by, and the operation channel: each
// operation type with its payload and result schemas, and the error codes a failure carries. Both
// programs import it; it imports neither. Other folders import from here only.
export { accountSchemaAC, accountSchemaB, checkAccount } from './account.ts';
export type { Drift, DriftingManager } from './drift.ts';
export {
  AGENT_FIELD_MANAGERS,
  CONTENT_HASH_ANNOTATION,
  driftingManagerSchema,
  driftSchema,
  MAX_DRIFT_PATHS,
} from './drift.ts';
export type { OperationErrorCode, OperationFailure } from './operation-errors.ts';
export {
  ABSENT_CODES,
  describeFailure,
  OPERATION_ERROR_CODES,
  operationErrorCode,
  operationFailureSchema,
} from './operation-errors.ts';
export type {
  AccountDescription,
  ExpectedVersion,
  ObjectRef,
  PlannableType,
} from './operation-payloads.ts';
export {
  accountDescriptionSchema,
  expectedVersionSchema,
  objectRefSchema,
  PLANNABLE_TYPES,
} from './operation-payloads.ts';
export type { AccessCheck, AppliedObject, PlannedObject } from './operation-results.ts';
export { accessCheckSchema, kubeObjectSchema, plannedObjectSchema } from './operation-results.ts';
export type {
  Checked,
  HandlerResult,
  OperationCall,
  OperationPayload,
  OperationResult,
  OperationType,
  ParsedPayload,
} from './operations.ts';
export {
  checkPayload,
  checkResult,
  isOperationType,
  OPERATION_TYPES,
  OPERATIONS,
  operationCallSchema,
} from './operations.ts';
export type { Permissions } from './permissions.ts';
export { permissionsSchema } from './permissions.ts';
export {
  forwardableRequestHeaders,
  isContainedPath,
  SERVICE_PROXY_MAX_BODY_BYTES,
  serviceNameSchema,
  serviceProxyRoot,
} from './service-proxy.ts';
