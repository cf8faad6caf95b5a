// How Orca recovers a task whose worker died (clouddriver's OperationsController, read by Orca's
// MonitorDeployManifestTask): GET /{provider}/task/{id}/owner names the replica running the task,
// PATCH /{provider}/task/{id} with `retry` fails it (retryable or not), and POST .../restart or
// POST /task/{id}:resume run a retryable failed task's remaining steps again on the replica asked,
// its owner from then on. Reading the owner takes READ on the task's accounts (as GET /task/{id});
// the others change the task, and take WRITE on each of them.
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';
import { taskReader } from './task-access.ts';
import type { RestartOutcome, TaskRunner } from './task-runner.ts';
import type { StoredTask, TaskStore } from './task-store.ts';

export interface TaskRecoveryRouteDeps {
  runner: Pick<TaskRunner, 'markFailed' | 'restart'>;
  store: { tasks: Pick<TaskStore, 'get'> };
  guard: AccountGuard;
}

/** As POST /ops answers: the task, and where to follow it. */
const taskReferenceSchema = z
  .object({ id: z.string(), resourceUri: z.string().describe('/task/{id}: where to follow the task') })
  .describe('StartOperationResult');

const taskOwnerSchema = z
  .object({ name: z.string().describe('the cloudctl replica that runs the task, or ran it last') })
  .describe('TaskOwner');

/** The provider paths take only ours: `kubernetes` in the API we mirror (as POST /{provider}/ops). */
const providerTaskParams = z.object({
  cloudProvider: z.literal('orchestrator').describe('the cloud provider: orchestrator'),
  id: z.string().min(1).describe('the task id'),
});

const notRetryable = errorBodySchema.describe('The task is not a retryable failure');

function notFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Task not found (id: ${id})`);
}

function reference(task: StoredTask) {
  return { id: task.id, resourceUri: `/task/${task.id}` };
}

/** The task, when the user may read it; a task the user may not read is as good as absent. */
async function readable(id: string, user: Principal, deps: TaskRecoveryRouteDeps): Promise<StoredTask> {
  const task = await deps.store.tasks.get(id);
  if (task === undefined || !(await taskReader(user, deps.guard))(task)) throw notFound(id);
  return task;
}

/** The task, when the user may read it (404) and change each of its accounts (403). */
async function changeable(id: string, user: Principal, deps: TaskRecoveryRouteDeps): Promise<StoredTask> {
  const task = await readable(id, user, deps);
  for (const account of task.accounts) await deps.guard.require(user, account, 'WRITE');
  return task;
}

/** The answer to a restart or a resume: the task, or 409 when it is not a retryable failure. */
function restarted(id: string, outcome: RestartOutcome) {
  if (outcome === undefined) throw notFound(id);
  if (!outcome.restarted) {
    const { task } = outcome;
    const why = task.state === 'FAILED' ? 'its failure is not retryable' : `it is ${task.state}`;
    throw new HttpError('CONFLICT', `Task id: ${id} is not retryable: ${why}`);
  }
  return reference(outcome.task);
}

export function taskRecoveryRoutes(deps: TaskRecoveryRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/:cloudProvider/task/:id/owner',
      summary: 'The cloudctl replica that owns a task (runs it, or ran it last)',
      tag: 'tasks',
      access: 'user',
      schema: { params: providerTaskParams, response: { 200: taskOwnerSchema } },
      handler: async ({ params, user }) => ({ name: (await readable(params.id, user, deps)).owner }),
    }),
    defineRoute({
      method: 'PATCH',
      url: '/:cloudProvider/task/:id',
      summary:
        'Fail a task so that it may be restarted (retry: true) or not (retry: false); a running task stops where it is',
      tag: 'tasks',
      access: 'user',
      schema: {
        params: providerTaskParams,
        body: z.object({
          retry: z.boolean().describe('whether the failed task may be restarted (POST .../restart, :resume)'),
        }),
        response: { 200: taskReferenceSchema, 409: errorBodySchema.describe('The task has completed') },
      },
      handler: async ({ params, body, user }) => {
        await changeable(params.id, user, deps);
        const task = await deps.runner.markFailed(params.id, body.retry, user.name);
        if (task === undefined) throw notFound(params.id);
        if (task.state === 'COMPLETED') {
          throw new HttpError('CONFLICT', `Task id: ${params.id} has completed: there is nothing to retry`);
        }
        return reference(task);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/:cloudProvider/task/:id/restart',
      summary:
        "Run a retryable failed task's remaining operations again on this replica (the body, Orca's list of operations, is read for its shape: the task's stored operations run)",
      tag: 'tasks',
      access: 'user',
      schema: {
        params: providerTaskParams,
        // The task's own steps run, as converted when it was submitted: converting the body again
        // would choose new versions (-v001) for what the first run applied as -v000.
        body: z.array(z.record(z.string(), z.record(z.string(), z.unknown()))).max(100),
        response: { 200: taskReferenceSchema, 409: notRetryable },
      },
      handler: async ({ params, user }) => {
        await changeable(params.id, user, deps);
        return restarted(params.id, await deps.runner.restart(params.id));
      },
    }),
    defineRoute({
      method: 'POST',
      // A literal colon follows the id (`::`); the pattern keeps the id from swallowing `:resume`, and
      // takes any character (a line break too, as fuzzers send) so no id falls through to GET /task/{id}.
      url: '/task/:id(^[\\s\\S]+)::resume',
      summary: 'Resume a retryable failed task: its remaining operations run again on this replica',
      tag: 'tasks',
      access: 'user',
      schema: {
        params: z.object({ id: z.string().min(1).describe('the task id') }),
        response: { 200: taskReferenceSchema, 409: notRetryable },
      },
      handler: async ({ params, user }) => {
        await changeable(params.id, user, deps);
        return restarted(params.id, await deps.runner.restart(params.id));
      },
    }),
  ];
}
