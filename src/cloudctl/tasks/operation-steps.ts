// A request's operations (`[{operationName: payload}, ...]`, the body of POST /ops and POST /plans)
// turned into the task steps that carry them out: each payload validated against its converter (a bad
// field is a 400 naming its path), the user's access to every account it touches checked (403), and
// the agent operations prepared. Nothing is stored and nothing written, so a bad request changes
// nothing; POST /ops runs the steps as a task (WRITE), a plan dry-runs them (READ).
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountGuard } from '../accounts/index.ts';
import type { Access, Principal } from '../auth/index.ts';
import { HttpError } from '../http/index.ts';
import { CONVERTERS, type ConverterContext, PayloadError } from './converters/index.ts';
import type { TaskStep } from './task-store.ts';

/** The body POST /ops and POST /plans take: `[{operationName: payload}, ...]`. */
export const operationsBodySchema = z
  .array(z.record(z.string(), z.record(z.string(), z.unknown())))
  .min(1)
  .max(100);

/** What a request's operations become, with the access checked as asked (a feature's bound form). */
export type StepsOf = (
  body: ReadonlyArray<Record<string, unknown>>,
  user: Principal,
  access: Access,
) => Promise<TaskStep[]>;

export interface OperationStepsDeps {
  guard: AccountGuard;
  context: ConverterContext;
}

export function invalidRequest(where: string, message: string): HttpError {
  return new HttpError('REQUEST_INVALID', `${where}: ${message}`);
}

/** Access to an account the body names; one that does not exist is a bad body, not a missing URL. */
async function requireAccess(
  user: Principal,
  account: string,
  access: Access,
  where: string,
  deps: OperationStepsDeps,
) {
  try {
    await deps.guard.require(user, account, access);
  } catch (error) {
    if (error instanceof HttpError && error.code === 'NOT_FOUND')
      throw invalidRequest(`${where}.account`, error.message);
    throw error;
  }
}

/** One operation of a request, checked and turned into its task steps; throws 400 or 403. */
export async function operationToSteps(
  name: string,
  request: unknown,
  where: string,
  user: Principal,
  access: Access,
  deps: OperationStepsDeps,
): Promise<TaskStep[]> {
  const converter = CONVERTERS.find((c) => c.name === name);
  if (converter === undefined) {
    throw invalidRequest(
      where,
      `unknown operation '${name}'; known: ${CONVERTERS.map((c) => c.name).join(', ')}`,
    );
  }
  const parsed = converter.payload.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
    throw invalidRequest(`${where}${path}`, issue?.message ?? 'invalid');
  }
  // Converters read the account's cluster (a deploy lists the versions it steps from; enableManifest
  // looks its ReplicaSet and Services up), so access to the account the body names is checked first:
  // no answer tells a user without it what the account holds. An account that does not exist holds
  // nothing; the check after says so.
  const named = isRecord(parsed.data) ? (parsed.data.account ?? parsed.data.credentials) : undefined;
  // The accounts whose access is checked already: the steps' accounts are checked after only if new.
  const checked = new Set<string>();
  if (typeof named === 'string') {
    await deps.guard.require(user, named, access).then(
      () => checked.add(named),
      (error: unknown) => {
        if (!(error instanceof HttpError && error.code === 'NOT_FOUND')) throw error;
      },
    );
  }
  let agentSteps: Awaited<ReturnType<typeof converter.toAgent>>;
  try {
    agentSteps = await converter.toAgent(parsed.data, deps.context);
  } catch (error) {
    if (error instanceof PayloadError) throw invalidRequest(`${where}.${error.path}`, error.message);
    throw error;
  }
  for (const account of new Set(agentSteps.map((s) => s.account))) {
    if (!checked.has(account)) await requireAccess(user, account, access, where, deps);
  }
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

/** The steps of a list of `{operationName: payload}`, in order; throws 400 or 403. */
export async function operationsToSteps(
  body: ReadonlyArray<Record<string, unknown>>,
  user: Principal,
  access: Access,
  deps: OperationStepsDeps,
): Promise<TaskStep[]> {
  const steps: TaskStep[] = [];
  for (const [index, entry] of body.entries()) {
    const names = Object.keys(entry);
    if (names.length !== 1) {
      throw invalidRequest(
        `body[${index}]`,
        `expected one operation name as the only key, found ${names.length}`,
      );
    }
    const [name = ''] = names;
    steps.push(...(await operationToSteps(name, entry[name], `body[${index}].${name}`, user, access, deps)));
  }
  return steps;
}
