// What a handler is: an operation type, the zod schema of its payload, and the work. The work gets
// the account's cluster and an abort signal that fires at the deadline or on shutdown. Handlers are
// registered as `RegisteredHandler`s, which check the payload before running.
import type { z } from 'zod';
import type { OperationType } from '../../contract/index.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { OperationError } from './operation-error.ts';

export interface HandlerContext {
  cluster: AccountCluster;
  signal: AbortSignal;
  now: () => Date;
  /** Resolves an `encrypted:` reference with the agent's secret engines (its config's `secrets`). */
  secret: (reference: string) => Promise<string>;
}

export interface OperationHandler<S extends z.ZodType> {
  /** One of the contract's operation types; `payload` is that type's schema there. */
  type: OperationType;
  payload: S;
  run(payload: z.infer<S>, context: HandlerContext): Promise<unknown>;
}

export interface RegisteredHandler {
  type: string;
  execute(payload: unknown, context: HandlerContext): Promise<unknown>;
}

export function defineHandler<S extends z.ZodType>(handler: OperationHandler<S>): RegisteredHandler {
  return {
    type: handler.type,
    execute: async (raw, context) => {
      const parsed = handler.payload.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = (issue?.path ?? []).map(String).join('.');
        throw new OperationError(
          'INVALID_PAYLOAD',
          `${handler.type}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`,
          path || undefined,
        );
      }
      return handler.run(parsed.data, context);
    },
  };
}
