// The operation channel between cloudctl and the agent, typed end to end: each operation type with
// its payload schema and its result schema. cloudctl sends `OperationPayload<T>` and reads
// `OperationResult<T>`; the agent's handler registry is keyed by `OperationType`, so a type without a
// handler, a send with the wrong payload, or a handler returning the wrong shape does not compile.
import { z } from 'zod';
import { isRecord } from '../lib/is-record.ts';
import * as payloads from './operation-payloads.ts';
import * as results from './operation-results.ts';
import { serviceProxyPayload, serviceProxyResult } from './service-proxy.ts';

export const OPERATIONS = {
  deploy: { payload: payloads.deployPayload, result: results.deployResult },
  delete: { payload: payloads.deletePayload, result: results.deleteResult },
  deleteSelected: { payload: payloads.deleteSelectedPayload, result: results.deletedObjectsResult },
  deleteObjects: { payload: payloads.deleteObjectsPayload, result: results.deletedObjectsResult },
  scale: { payload: payloads.scalePayload, result: results.scaleResult },
  patch: { payload: payloads.patchPayload, result: results.patchResult },
  rollout: { payload: payloads.rolloutPayload, result: results.rolloutResult },
  runJob: { payload: payloads.runJobPayload, result: results.runJobResult },
  get: { payload: payloads.getPayload, result: results.getResult },
  list: { payload: payloads.listPayload, result: results.listResult },
  describeAccount: { payload: payloads.describeAccountPayload, result: results.describeAccountResult },
  events: { payload: payloads.eventsPayload, result: results.eventsResult },
  logs: { payload: payloads.logsPayload, result: results.logsResult },
  httpRequest: { payload: payloads.httpRequestPayload, result: results.httpRequestResult },
  plan: { payload: payloads.planPayload, result: results.planResult },
  versions: { payload: payloads.versionsPayload, result: results.versionsResult },
  serviceProxy: { payload: serviceProxyPayload, result: serviceProxyResult },
} as const;

type Operations = typeof OPERATIONS;
export type OperationType = keyof Operations;

export const OPERATION_TYPES: ReadonlyArray<OperationType> = Object.keys(OPERATIONS).filter(isOperationType);

/** What a sender writes for an operation of type `T`: fields with a default may be left out. */
export type OperationPayload<T extends OperationType> = z.input<Operations[T]['payload']>;
/** The payload as a handler gets it: checked, defaults filled in. */
export type ParsedPayload<T extends OperationType> = z.output<Operations[T]['payload']>;
/** What a handler of type `T` returns (its fields' defaults may be left out). */
export type HandlerResult<T extends OperationType> = z.input<Operations[T]['result']>;
/** The result of an operation of type `T` as cloudctl reads it. */
export type OperationResult<T extends OperationType> = z.output<Operations[T]['result']>;

/** One operation to send: its type and a payload of that type, checked together by the compiler. */
export type OperationCall = {
  [T in OperationType]: { type: T; payload: OperationPayload<T> };
}[OperationType];

export function isOperationType(type: string): type is OperationType {
  return Object.hasOwn(OPERATIONS, type);
}

function isOperationCall(value: unknown): value is OperationCall {
  if (!isRecord(value) || typeof value.type !== 'string' || !isOperationType(value.type)) return false;
  return OPERATIONS[value.type].payload.safeParse(value.payload).success;
}

/**
 * An operation call as stored (a task's step, a deployment's): its type known and its payload valid
 * for that type, kept as it was written (not re-shaped by the schema's defaults).
 */
export const operationCallSchema = z.custom<OperationCall>(
  isOperationCall,
  'expected {type, payload} with a known operation type and a payload of that type',
);

/** A payload or result checked against its type's schema: the value, or the first problem. */
export type Checked<V> = { ok: true; value: V } | { ok: false; path: string; message: string };

function checkWith<V>(schema: z.ZodType, value: unknown): Checked<V> {
  const parsed = schema.safeParse(value);
  // The callers pass OPERATIONS[type].payload or .result, whose output is V for their `type`;
  // TypeScript does not follow a generic index through zod's conditional output type (it sees the
  // union of all outputs), so the one cast of the channel is here.
  if (parsed.success) return { ok: true, value: parsed.data as V };
  const issue = parsed.error.issues[0];
  return { ok: false, path: (issue?.path ?? []).map(String).join('.'), message: issue?.message ?? 'invalid' };
}

/** A payload as received, checked (defaults filled in) for a handler of its type. */
export function checkPayload<T extends OperationType>(type: T, payload: unknown): Checked<ParsedPayload<T>> {
  return checkWith(OPERATIONS[type].payload, payload);
}

/** A result as received, checked against its type's schema, for a reader on cloudctl's side. */
export function checkResult<T extends OperationType>(type: T, result: unknown): Checked<OperationResult<T>> {
  return checkWith(OPERATIONS[type].result, result);
}
