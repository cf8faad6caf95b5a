// What a planner finds out about one object before the plan is assembled: the object read live, the
// object as the dry run left it, the API server's verdict and the writes the agent's identity must be
// allowed. Values are raw here (a Secret's too); plan-assembly.ts digests them on the way out. A
// planner per operation type (the handlers' `…Planner`s) makes these; the registry holds one per
// plannable type, so a write type without a planner does not compile.
import type {
  HandlerResult,
  ObjectRef,
  ParsedPayload,
  PlannableType,
  PlannedObject,
} from '../../../contract/index.ts';
import type { HandlerContext } from '../operation-handler.ts';

/** One write to ask the authorizer about (a SelfSubjectAccessReview's resource attributes). */
export interface AccessRequest {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  namespace?: string | undefined;
  /** Left out for a create: the API server authorizes a create without the name. */
  name?: string | undefined;
}

export type DryRunVerdict = PlannedObject['dryRun'];

export interface ObjectDraft {
  ref: ObjectRef;
  action: PlannedObject['action'];
  live: Record<string, unknown> | null;
  planned: Record<string, unknown> | null;
  dryRun: DryRunVerdict;
  access: AccessRequest[];
  unknown: string[];
  /** The object as the operation gives it (a manifest): its Secret values are kept out of messages too. */
  given?: Record<string, unknown> | undefined;
}

export interface PlanDraft {
  objects: ObjectDraft[];
  unknown: string[];
}

export type Planner<T extends PlannableType> = (
  payload: ParsedPayload<T>,
  context: HandlerContext,
) => Promise<PlanDraft>;

/** One planner for every plannable type of the contract. */
export type PlannerRegistry = { readonly [T in PlannableType]: Planner<T> };

export type PlanResult = HandlerResult<'plan'>;
