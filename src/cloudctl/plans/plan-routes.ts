// POST /plans, GET /plans/{id} and POST /plans/{id}/apply. A plan is made from the body POST /ops
// takes, converted exactly as POST /ops converts it, with READ on its accounts (seeing what a change
// would do changes nothing); reading one needs READ on every account it touches, applying it WRITE
// (plan-access.ts, as the status page checks them).
import { z } from 'zod';
import { AGENT_ANSWERS, defineRoute, errorAnswers, queryInteger, type Route } from '../http/index.ts';
import { operationsBodySchema, type StepsOf } from '../tasks/index.ts';
import type { CheckedPlans } from './plan-access.ts';
import { planRecordSchema } from './plan-record.ts';
import type { Planner } from './planner.ts';

export interface PlanRouteDeps {
  planner: Planner;
  /** Reads and applies with the user's access checked (plan-access.ts). */
  plans: CheckedPlans;
  stepsOf: StepsOf;
}

const planIdParams = z.object({ id: z.string().min(1).describe('the plan id') });

const appliedSchema = z
  .object({
    id: z.string(),
    resourceUri: z
      .string()
      .describe('/task/{id}: where to follow the task (a deployment: /deployments/{id})'),
  })
  .describe('StartOperationResult');

export function planRoutes(deps: PlanRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/plans',
      summary:
        'Plan operations without changing any cluster: the body of POST /ops, each write dry-run by its agent, the plan stored until it expires',
      tag: 'plans',
      access: 'user',
      schema: {
        querystring: z.object({
          clientRequestId: z
            .string()
            .min(1)
            .max(256)
            .optional()
            .describe('makes the request idempotent: a retry with the same id returns the same plan'),
          expireAfterSeconds: queryInteger(z.int().min(1))
            .optional()
            .describe('how long the plan may be applied; at most (and by default) plans.expireAfterSeconds'),
        }),
        body: operationsBodySchema,
        response: { 201: planRecordSchema, ...AGENT_ANSWERS },
      },
      handler: async ({ body, query, user }) => {
        const steps = await deps.stepsOf(body, user, 'READ');
        return deps.planner.plan({
          source: 'operations',
          user: user.name,
          steps,
          ...(query.clientRequestId === undefined ? {} : { requestId: query.clientRequestId }),
          ...(query.expireAfterSeconds === undefined
            ? {}
            : { expireAfterMs: query.expireAfterSeconds * 1000 }),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/plans/:id',
      summary: 'A plan: what each operation would do to each object, and whether it is still to be applied',
      tag: 'plans',
      access: 'user',
      schema: { params: planIdParams, response: { 200: planRecordSchema } },
      handler: ({ params, user }) => deps.plans.read(user, params.id),
    }),
    defineRoute({
      method: 'POST',
      url: '/plans/:id/apply',
      summary:
        'Apply exactly the planned operations as a task, only while every planned object is as the plan saw it; once',
      tag: 'plans',
      access: 'user',
      schema: {
        params: planIdParams,
        // 409: applied already, or an object moved since the plan; 410: expired. The agents are asked
        // for the objects' versions before anything starts.
        response: { 200: appliedSchema, ...errorAnswers('CONFLICT', 'GONE'), ...AGENT_ANSWERS },
      },
      handler: ({ params, user }) => deps.plans.apply(user, params.id),
    }),
  ];
}
