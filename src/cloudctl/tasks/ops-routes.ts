// POST /ops and POST /ops/{name} (both deprecated in the API we mirror, and still how its clients
// write), and the provider's forms POST /orchestrator/ops and /orchestrator/ops/{name}: each
// operation is validated, authorized (WRITE on its accounts) and turned into its agent operations
// (one or more task steps) before anything is stored, so a bad request changes nothing. The answer is the task
// that runs them; a retry with the same clientRequestId gets the same task back.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountGuard } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import { AGENT_ANSWERS, defineRoute, HttpError, type Route } from '../http/index.ts';
import { CONVERTERS, type ConverterContext, PayloadError } from './converters/index.ts';
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

function invalid(where: string, message: string): HttpError {
  return new HttpError('REQUEST_INVALID', `${where}: ${message}`);
}

/** One operation of a request, checked and turned into a task step; throws 400 or 403. */
async function requireWrite(user: Principal, account: string, where: string, deps: OpsRouteDeps) {
  try {
    await deps.guard.require(user, account, 'WRITE');
  } catch (error) {
    // An account named in the body that does not exist is a bad body, not a missing URL.
    if (error instanceof HttpError && error.code === 'NOT_FOUND')
      throw invalid(`${where}.account`, error.message);
    throw error;
  }
}

/** One operation of a request, checked and turned into its task steps; throws 400 or 403. */
async function toSteps(
  name: string,
  request: unknown,
  where: string,
  user: Principal,
  deps: OpsRouteDeps,
): Promise<TaskStep[]> {
  const converter = CONVERTERS.find((c) => c.name === name);
  if (converter === undefined) {
    throw invalid(where, `unknown operation '${name}'; known: ${CONVERTERS.map((c) => c.name).join(', ')}`);
  }
  const parsed = converter.payload.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
    throw invalid(`${where}${path}`, issue?.message ?? 'invalid');
  }
  // Converters read the account's cluster (a deploy lists the versions it steps from; enableManifest
  // looks its ReplicaSet and Services up), so WRITE on the account the body names is checked first:
  // no answer tells a user without it what the account holds. An account that does not exist holds
  // nothing; the check after says so.
  const named = isRecord(parsed.data) ? (parsed.data.account ?? parsed.data.credentials) : undefined;
  if (typeof named === 'string') {
    await deps.guard.require(user, named, 'WRITE').catch((error: unknown) => {
      if (!(error instanceof HttpError && error.code === 'NOT_FOUND')) throw error;
    });
  }
  let agentSteps: Awaited<ReturnType<typeof converter.toAgent>>;
  try {
    agentSteps = await converter.toAgent(parsed.data, deps.context);
  } catch (error) {
    if (error instanceof PayloadError) throw invalid(`${where}.${error.path}`, error.message);
    throw error;
  }
  for (const account of new Set(agentSteps.map((s) => s.account)))
    await requireWrite(user, account, where, deps);
  const description = converter.describe(parsed.data);
  return agentSteps.map(({ description: stepDescription, details, ...call }) => ({
    ...call,
    name,
    phase: converter.phase,
    description: stepDescription ?? description,
    input: parsed.data,
    ...(details === undefined ? {} : { details }),
    operationId: null,
  }));
}

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
  const steps: TaskStep[] = [];
  for (const [index, entry] of body.entries()) {
    const names = Object.keys(entry);
    if (names.length !== 1) {
      throw invalid(`body[${index}]`, `expected one operation name as the only key, found ${names.length}`);
    }
    const [name = ''] = names;
    steps.push(...(await toSteps(name, entry[name], `body[${index}].${name}`, user, deps)));
  }
  return start(steps, requestId, user, deps);
}

async function startOne(
  name: string,
  body: unknown,
  requestId: string | undefined,
  user: Principal,
  deps: OpsRouteDeps,
) {
  if (!isRecord(body)) throw invalid('body', 'expected a JSON object');
  return start(await toSteps(name, body, 'body', user, deps), requestId, user, deps);
}

const operationsBody = z.array(z.record(z.string(), payloadObject)).min(1).max(100);
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
        body: operationsBody,
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
        body: operationsBody,
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
