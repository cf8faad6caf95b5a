// `plan`: what a write operation would do, found without writing anything. The inner payload is
// checked as if it were sent on its own (a bad one is INVALID_PAYLOAD at `operation.payload.…`);
// its type's planner reads each object it would touch and sends each write as a server-side dry run;
// the drafts are then assembled (plan/plan-assembly.ts): access reviewed, Secret values digested.
import { checkPayload, type PlannableType } from '../../../contract/index.ts';
import { OperationError } from '../operation-error.ts';
import type { Handler, HandlerContext } from '../operation-handler.ts';
import { assemblePlan, type PlanDraft } from '../plan/index.ts';
import { PLANNERS } from './planners.ts';

function draftOf<T extends PlannableType>(
  type: T,
  raw: unknown,
  context: HandlerContext,
): Promise<PlanDraft> {
  const payload = checkPayload(type, raw);
  if (!payload.ok) {
    const path = `operation.payload${payload.path ? `.${payload.path}` : ''}`;
    throw new OperationError('INVALID_PAYLOAD', `plan of ${type}: ${path}: ${payload.message}`, path);
  }
  return PLANNERS[type](payload.value, context);
}

export const planHandler: Handler<'plan'> = {
  run: async ({ operation }, context) =>
    assemblePlan(await draftOf(operation.type, operation.payload, context), context.cluster, context.signal),
};
