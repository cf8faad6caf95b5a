// `plan`: what an operation would do, found by a dry run. Being written (see the helper).
import { OperationError } from '../operation-error.ts';
import type { Handler } from '../operation-handler.ts';

export const planHandler: Handler<'plan'> = {
  run: async ({ operation }) => {
    throw new OperationError('UNKNOWN_OPERATION', `planning ${operation.type} is not built yet`);
  },
};
