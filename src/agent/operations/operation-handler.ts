// What a handler is: the work of one operation type. It gets the payload already checked against the
// contract's schema for its type (defaults filled in), the account's cluster and an abort signal that
// fires at the deadline or on shutdown, and returns that type's result. Handlers are registered in a
// registry keyed by operation type (handlers/index.ts), which the compiler holds complete. A planned
// write's preconditions (`expect`) are checked here, before its handler runs (preconditions.ts).
import {
  checkPayload,
  type HandlerResult,
  type OperationType,
  type ParsedPayload,
} from '../../contract/index.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { OperationError } from './operation-error.ts';
import { checkPreconditions, expectationsOf } from './preconditions.ts';

export interface HandlerContext {
  cluster: AccountCluster;
  signal: AbortSignal;
  now: () => Date;
  /** Resolves an `encrypted:` reference with the agent's secret engines (its config's `secrets`). */
  secret: (reference: string) => Promise<string>;
}

export interface Handler<T extends OperationType> {
  run(payload: ParsedPayload<T>, context: HandlerContext): Promise<HandlerResult<T>>;
}

/** One handler for every operation type of the contract: a type without one does not compile. */
export type HandlerRegistry = { readonly [T in OperationType]: Handler<T> };

/**
 * Runs the registry's handler for `type` on a payload as received; a payload with preconditions
 * (`expect`) runs only while every expected object is as the plan saw it.
 */
export async function runHandler<T extends OperationType>(
  handlers: HandlerRegistry,
  type: T,
  raw: unknown,
  context: HandlerContext,
): Promise<HandlerResult<T>> {
  const handler: Handler<T> = handlers[type];
  const payload = checkPayload(type, raw);
  if (!payload.ok) {
    const { path, message } = payload;
    throw new OperationError(
      'INVALID_PAYLOAD',
      `${type}: ${path ? `${path}: ` : ''}${message}`,
      path || undefined,
    );
  }
  await checkPreconditions(expectationsOf(payload.value), context.cluster, context.signal);
  return handler.run(payload.value, context);
}
