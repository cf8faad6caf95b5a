// Operations sent by the control plane: their journal (in flight, recent, shutdown drain).
export type { OperationOutcome, OperationRecord } from './operation-journal.ts';
export { OperationJournal } from './operation-journal.ts';
