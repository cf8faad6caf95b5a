// The port through which the deployment service has a step planned: the calls a step would send to
// an agent go in, a stored plan comes out (cloudctl's plans feature dry-runs them, diffs them against
// the live objects and keeps the record). The composition root plugs the plans feature in; the
// deployment service knows only this shape, so plans need not know deployments nor the other way.
import { z } from 'zod';
import type { ExpectedVersion, OperationCall } from '../../../contract/index.ts';
import type { PlanRecord } from '../../plans/index.ts';

/** The writes a deployment step sends: applies, scales and Service patches. */
export type WriteCall = Extract<OperationCall, { type: 'deploy' | 'scale' | 'patch' }>;

/** One call of a step as a plan lists it. */
export interface PlannedCall {
  account: string;
  /** The step it belongs to (`deploy`, `setWeight`), as the plan's operation name. */
  name: string;
  description: string;
  call: WriteCall;
}

export interface PlanRequest {
  /** Who the plan is made for: the deployment's author, or the user planning a file. */
  user: string;
  calls: PlannedCall[];
  /** What the plan cannot tell (later steps, readiness), listed with it. */
  unknown: string[];
  /** How long the plan stays appliable; the plans feature's default when absent. */
  expireAfterMs?: number;
  /**
   * What applying the plan through POST /plans/{id}/apply means, stored with it and handed back to
   * the deployment service's applier: a deployment file to start, or a gate to approve.
   */
  subject: PlanSubject;
}

/**
 * What a deployment plan is of, kept with it for its applier: the first deploys of a file (POST
 * /deployments/plans; applying it starts the deployment under the id the plan was made for, since
 * that id is in every versioned name), or a gate's next step (applied by deciding the gate).
 */
export const planSubjectSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('file'),
    deploymentId: z.string(),
    fileName: z.string(),
    text: z.string(),
    /** The call of index i is the deploy of targets[i], whose calls hash to `digest`. */
    targets: z.array(z.object({ name: z.string(), digest: z.string() })),
  }),
  z.object({ kind: z.literal('gate'), deploymentId: z.string(), stepKey: z.string() }),
]);
export type PlanSubject = z.infer<typeof planSubjectSchema>;

export interface DeploymentPlan {
  record: PlanRecord;
  /** Per call, in order: each object the plan saw with its resourceVersion (null: absent). */
  expect: ExpectedVersion[][];
}

export interface DeploymentPlanner {
  plan(request: PlanRequest): Promise<DeploymentPlan>;
  /** The absolute URL of GET /plans/{id}, from cloudctl's external address: `{{vendor.planUri}}`. */
  uri(id: string): string;
  /** The gate's plan is being applied by its deployment: it reads `applied` from now on. */
  applied(planId: string, deploymentId: string, by: string): Promise<void>;
}
