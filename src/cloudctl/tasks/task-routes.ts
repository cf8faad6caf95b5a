// GET /task/{id} and GET /task: tasks as clients of the API we mirror follow them. A user sees a task
// when it may read every account the task touches (admins see all).
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import { defineRoute, HttpError, queryInteger, type Route } from '../http/index.ts';
import { taskReader } from './task-access.ts';
import type { TaskStore } from './task-store.ts';
import { taskSchema, taskView } from './task-view.ts';

export interface TaskRouteDeps {
  store: { tasks: TaskStore };
  guard: AccountGuard;
}

export function taskRoutes(deps: TaskRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/task/:id',
      summary: 'A task: status, history and result objects',
      tag: 'tasks',
      access: 'user',
      schema: { params: z.object({ id: z.string().min(1) }), response: { 200: taskSchema } },
      handler: async ({ params, user }) => {
        const task = await deps.store.tasks.get(params.id);
        // A task the user may not read is as good as absent: its id reveals nothing.
        if (task === undefined || !(await taskReader(user, deps.guard))(task)) {
          throw new HttpError('NOT_FOUND', `Task not found (id: ${params.id})`);
        }
        return taskView(task);
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
        const tasks = await deps.store.tasks.recent(query.limit);
        return tasks.filter(mayRead).map((task) => taskView(task));
      },
    }),
  ];
}
