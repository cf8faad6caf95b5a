// Operations sent by the control plane: the executor (idempotent by id, with deadlines), the
// handlers, their coded errors, and the journal (in flight, recent, shutdown drain).
export { HANDLERS } from './handlers/index.ts';
export { OperationError } from './operation-error.ts';
export type { Operation, OperationResult } from './operation-executor.ts';
export { OperationExecutor, operationResultSchema, operationSchema } from './operation-executor.ts';
export type { Handler, HandlerContext, HandlerRegistry } from './operation-handler.ts';
export type { OperationOutcome, OperationRecord } from './operation-journal.ts';
export { OperationJournal } from './operation-journal.ts';
export type { OperationsDeps } from './operations-feature.ts';
export { createOperations, DEFAULT_OPERATION_DEADLINE_MS } from './operations-feature.ts';
