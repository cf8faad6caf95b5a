// The agent <-> cloudctl contract that is not in the .proto files: the JSON both programs put inside
// them. The account definition, the operation payloads the agent's handlers accept, and their
// types. Both programs import it; it imports neither. Other folders import from here only.
export { accountSchemaAC, accountSchemaB, checkAccount } from './account.ts';
export type { AccountDescription, ObjectRef, OperationPayload, OperationType } from './operation-payloads.ts';
export {
  accountDescriptionSchema,
  deleteObjectsPayload,
  deletePayload,
  deleteSelectedPayload,
  deployPayload,
  describeAccountPayload,
  eventsPayload,
  getPayload,
  httpRequestPayload,
  listPayload,
  logsPayload,
  patchPayload,
  rolloutPayload,
  runJobPayload,
  scalePayload,
} from './operation-payloads.ts';
export type { Permissions } from './permissions.ts';
export { permissionsSchema } from './permissions.ts';
