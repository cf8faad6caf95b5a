// Why an operation failed, as it crosses the wire: a code from one list both programs share, a
// message for people, and the offending field when there is one. The proto carries each as its own
// field (OperationResult.error_code, error, error_path), so neither side ever parses error text.
// Codes are created here only, so users can search for them (as fastify's FST_ERR_…).
import { z } from 'zod';

export const OPERATION_ERROR_CODES = [
  /** The payload does not match the operation type's schema, or asks for something impossible. */
  'INVALID_PAYLOAD',
  /** A manifest in the payload is not a Kubernetes object (no kind, no name, bad namespace…). */
  'INVALID_MANIFEST',
  /** The agent has no handler for the type (an agent older than cloudctl). */
  'UNKNOWN_OPERATION',
  /** The agent does not serve the account. */
  'UNKNOWN_ACCOUNT',
  /** The cluster serves no such kind. */
  'UNKNOWN_KIND',
  'NOT_FOUND',
  'FORBIDDEN',
  'CONFLICT',
  /** A planned write (`expect`) found an object moved since the plan; nothing was written. */
  'PRECONDITION_FAILED',
  /** The API server refused the object as invalid (422). */
  'INVALID',
  /** No answer came: the cluster, or the target of an `httpRequest`, could not be reached. */
  'UNREACHABLE',
  'SECRET_UNRESOLVED',
  'DEADLINE_EXCEEDED',
  'SHUTTING_DOWN',
  /** A repeat of an unsafe operation that this agent process never received. */
  'NOT_STARTED',
  /** The result is more than one gRPC message may carry. */
  'RESULT_TOO_LARGE',
  /** Set by cloudctl: the agent's result does not match the contract's schema for its type. */
  'INVALID_RESULT',
  /** Anything else; the message says what. Also a failure reported without a code. */
  'FAILED',
] as const;
export type OperationErrorCode = (typeof OPERATION_ERROR_CODES)[number];

export const operationFailureSchema = z.object({
  code: z.enum(OPERATION_ERROR_CODES),
  message: z.string(),
  /** The offending field of a payload or manifest, when there is one. */
  path: z.string().optional(),
});
export type OperationFailure = z.infer<typeof operationFailureSchema>;

/** The codes that mean "there is no such object", which a read answers as absence, not failure. */
export const ABSENT_CODES: ReadonlySet<OperationErrorCode> = new Set(['NOT_FOUND', 'UNKNOWN_KIND']);

/**
 * A code as received: one this program does not know (a newer agent) becomes FAILED, so a reader
 * always gets one of its own codes and the message still says what happened.
 */
export function operationErrorCode(received: string): OperationErrorCode {
  const known = operationFailureSchema.shape.code.safeParse(received);
  return known.success ? known.data : 'FAILED';
}

/** A failure as people read it: `CODE: message (at path)`. */
export function describeFailure(failure: OperationFailure): string {
  return `${failure.code}: ${failure.message}${failure.path === undefined ? '' : ` (at ${failure.path})`}`;
}
