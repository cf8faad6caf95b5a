// POST /ops and POST /ops/{name} (both deprecated in the API we mirror, and still how its clients
// write), and the provider's forms POST /orchestrator/ops and /orchestrator/ops/{name}: each
// operation is validated, authorized (WRITE on its accounts) and turned into its agent operations
// (one or more task steps, operation-steps.ts) before anything is stored, so a bad request changes
// nothing. The answer is the task that runs them; a retry with the same clientRequestId gets the same task back.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountGuard } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import { AGENT_ANSWERS, defineRoute, type Route } from '../http/index.ts';
import { CONVERTERS, type ConverterContext } from './converters/index.ts';
import {
  invalidRequest,
  operationsBodySchema,
  operationsToSteps,
  operationToSteps,
} from './operation-steps.ts';
import type { TaskRunner } from './task-runner.ts';
import type { TaskStep } from './task-store.ts';

export interface OpsRouteDeps {
  runner: TaskRunner;
  guard: AccountGuard;
  context: ConverterContext;
}

const startOperationResultSchema = z
  .object({ id: z.string(), resourceUri: z.string().describe('/task/{id}: where to follow the task') })
  .describe('StartOperationResult');

const clientRequestIdSchema = z.object({
  clientRequestId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('makes the request idempotent: a retry with the same id returns the same task'),
});

const payloadObject = z.record(z.string(), z.unknown());

const [FIRST_NAME = '', ...OTHER_NAMES] = CONVERTERS.map((c) => c.name);
const OPERATION_NAMES: [string, ...string[]] = [FIRST_NAME, ...OTHER_NAMES];

async function start(steps: TaskStep[], requestId: string | undefined, user: Principal, deps: OpsRouteDeps) {
  const task = await deps.runner.submit({ requestId: requestId ?? null, user: user.name, steps });
  return { id: task.id, resourceUri: `/task/${task.id}` };
}

/** The task of a list of `{operationName: payload}`, carried out in order. */
async function startMany(
  body: Record<string, Record<string, unknown>>[],
  requestId: string | undefined,
  user: Principal,
  deps: OpsRouteDeps,
) {
  return start(await operationsToSteps(body, user, 'WRITE', deps), requestId, user, deps);
}

async function startOne(
  name: string,
  body: unknown,
  requestId: string | undefined,
  user: Principal,
  deps: OpsRouteDeps,
) {
  if (!isRecord(body)) throw invalidRequest('body', 'expected a JSON object');
  return start(await operationToSteps(name, body, 'body', user, 'WRITE', deps), requestId, user, deps);
}

/** The provider paths take only ours: `kubernetes` in the API we mirror. */
const cloudProviderParam = z.literal('orchestrator').describe('the cloud provider: orchestrator');

export function opsRoutes(deps: OpsRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/ops',
      summary:
        'Run operations (deprecated): a list of {operationName: payload}, carried out in order as one task',
      tag: 'operations',
      deprecated: true,
      access: 'user',
      schema: {
        querystring: clientRequestIdSchema,
        body: operationsBodySchema,
        // A converter may look at the cluster through the agent as it checks the request (a deploy's
        // account, the versions a cleanup drops).
        response: { 200: startOperationResultSchema, ...AGENT_ANSWERS },
      },
      handler: ({ body, query, user }) => startMany(body, query.clientRequestId, user, deps),
    }),
    defineRoute({
      method: 'POST',
      url: '/ops/:name',
      summary: 'Run one operation (deprecated) as a task',
      tag: 'operations',
      deprecated: true,
      access: 'user',
      schema: {
        params: z.object({ name: z.enum(OPERATION_NAMES).describe('the operation') }),
        querystring: clientRequestIdSchema,
        body: payloadObject,
        // A converter may look at the cluster through the agent as it checks the request (a deploy's
        // account, the versions a cleanup drops).
        response: { 200: startOperationResultSchema, ...AGENT_ANSWERS },
      },
      handler: ({ params, body, query, user }) =>
        startOne(params.name, body, query.clientRequestId, user, deps),
    }),
    defineRoute({
      method: 'POST',
      url: '/:cloudProvider/ops',
      summary:
        "Run a provider's operations: a list of {operationName: payload}, carried out in order as one task",
      tag: 'operations',
      access: 'user',
      schema: {
        params: z.object({ cloudProvider: cloudProviderParam }),
        querystring: clientRequestIdSchema,
        body: operationsBodySchema,
        // A converter may look at the cluster through the agent as it checks the request (a deploy's
        // account, the versions a cleanup drops).
        response: { 200: startOperationResultSchema, ...AGENT_ANSWERS },
      },
      handler: ({ body, query, user }) => startMany(body, query.clientRequestId, user, deps),
    }),
    defineRoute({
      method: 'POST',
      url: '/:cloudProvider/ops/:name',
      summary: "Run one of a provider's operations as a task",
      tag: 'operations',
      access: 'user',
      schema: {
        params: z.object({
          cloudProvider: cloudProviderParam,
          name: z.enum(OPERATION_NAMES).describe('the operation'),
        }),
        querystring: clientRequestIdSchema,
        body: payloadObject,
        // A converter may look at the cluster through the agent as it checks the request (a deploy's
        // account, the versions a cleanup drops).
        response: { 200: startOperationResultSchema, ...AGENT_ANSWERS },
      },
      handler: ({ params, body, query, user }) =>
        startOne(params.name, body, query.clientRequestId, user, deps),
    }),
  ];
}
