// GET /task/{id} and GET /task: tasks as clients of the API we mirror follow them. A user sees a task
// when it may read every account the task touches (admins see all). A client following a running
// task may ask GET /task/{id} to wait (`waitMs`) until the task next changes: it reads the change the
// moment it is stored here instead of a polling interval later (task-changes.ts), and a change stored
// by another replica within REREAD_MS.
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import { defineRoute, HttpError, queryInteger, type Route } from '../http/index.ts';
import { taskReader } from './task-access.ts';
import type { TaskStore, TaskSummary } from './task-store.ts';
import { taskSchema, taskView } from './task-view.ts';

export interface TaskRouteDeps {
  store: { tasks: TaskStore };
  guard: AccountGuard;
}

/** The longest wait a client may ask for: a proxy between it and cloudctl may not hold a quiet request longer. */
const MAX_WAIT_MS = 10_000;
/** A waiting request reads the task again this often, for a change another replica stored. */
const REREAD_MS = 200;

/** Whether the task moved on since `before` was read. */
const movedOn = (before: TaskSummary, now: TaskSummary) =>
  now.state !== before.state ||
  now.history.length !== before.history.length ||
  now.updatedAt.getTime() !== before.updatedAt.getTime();

/**
 * The task once it moves on from `first` (read after `listening` began), or as it is when
 * `deadline` passes; a task that no longer runs is answered at once. A change written here comes
 * with the task as written; one from another replica (a wait that ran out) is read.
 */
async function nextChange(
  tasks: TaskStore,
  first: TaskSummary,
  listening: Promise<TaskSummary | undefined>,
  deadline: number,
): Promise<TaskSummary | undefined> {
  let next: Promise<TaskSummary | undefined> = listening;
  let now: TaskSummary | undefined = first;
  while (now !== undefined && now.state === 'STARTED' && deadline > performance.now()) {
    const told = await next;
    next = tasks.changes.next(first.id, Math.max(0, Math.min(deadline - performance.now(), REREAD_MS)));
    now = told ?? (await tasks.summary(first.id));
    if (now === undefined || movedOn(first, now)) break;
  }
  return now;
}

export function taskRoutes(deps: TaskRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/task/:id',
      summary: 'A task: status, history and result objects',
      tag: 'tasks',
      access: 'user',
      schema: {
        params: z.object({ id: z.string().min(1) }),
        querystring: z.object({
          waitMs: queryInteger(z.int().min(0).max(MAX_WAIT_MS).default(0)).describe(
            'while the task runs, answer when it next changes or after this many milliseconds, whichever is first (0: at once)',
          ),
        }),
        response: { 200: taskSchema },
      },
      handler: async ({ params, query, user }) => {
        const { tasks } = deps.store;
        const deadline = performance.now() + query.waitMs;
        // Listening before the read, so a change stored between the read and the wait is not missed.
        const listening =
          query.waitMs > 0 ? tasks.changes.next(params.id, Math.min(query.waitMs, REREAD_MS)) : undefined;
        const task = await tasks.summary(params.id);
        // A task the user may not read is as good as absent: its id reveals nothing (nor does a wait).
        if (task === undefined || !(await taskReader(user, deps.guard))(task)) {
          throw new HttpError('NOT_FOUND', `Task not found (id: ${params.id})`);
        }
        if (listening === undefined) return taskView(task);
        return taskView((await nextChange(tasks, task, listening, deadline)) ?? task);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/task',
      summary: 'The newest tasks the user may read, newest first',
      tag: 'tasks',
      access: 'user',
      schema: {
        querystring: z.object({ limit: queryInteger(z.int().min(1).max(1000).default(100)) }),
        response: { 200: z.array(taskSchema) },
      },
      handler: async ({ query, user }) => {
        const mayRead = await taskReader(user, deps.guard);
        const tasks = await deps.store.tasks.recentSummaries(query.limit);
        return tasks.filter(mayRead).map((task) => taskView(task));
      },
    }),
  ];
}
