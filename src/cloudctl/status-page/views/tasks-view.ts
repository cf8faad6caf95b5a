// Recent tasks (POST /ops) and the operations sent to agents, with outcome and duration; only those
// the user may read, as GET /task decides (every account of the task readable, or an admin).
import { taskReader } from '../../tasks/index.ts';
import { timeAgo } from '../format.ts';
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { operationsTable, RECENT_OPERATIONS } from './operations-table.ts';
import { code, emptyState, table } from './table.ts';
import { taskDuration, taskOutcome } from './task-outcome.ts';

/** How many of the newest tasks are read; those the user may not read are left out of them. */
export const RECENT_TASKS = 50;

export const tasksView = defineView({
  url: '/status/tasks',
  nav: 'Tasks',
  async render(context) {
    const { sources, user, now } = context;
    const [mayRead, recent, visible] = await Promise.all([
      taskReader(user, sources.guard),
      sources.store.tasks.recent(RECENT_TASKS),
      user.admin ? undefined : sources.guard.visible(user, 'READ'),
    ]);
    const tasks = recent.filter(mayRead);
    const operations = await sources.store.operations.recent(
      RECENT_OPERATIONS,
      visible?.map((a) => a.name),
    );
    const taskList =
      tasks.length === 0
        ? emptyState(
            'No tasks yet.',
            html`Tasks appear here when someone deploys, scales or deletes through <code>POST /ops</code>.`,
          )
        : table(
            ['Task', 'Operations', 'Accounts', 'User', 'Started', 'Duration', 'Outcome', 'Last status'],
            tasks.map((task) => [
              html`<a href="/status/tasks/${encodeURIComponent(task.id)}" data-task="${task.id}">${code(task.id.slice(0, 8))}</a>`,
              task.steps.map((s) => s.name).join(', '),
              task.accounts.join(', '),
              task.user,
              timeAgo(task.createdAt, now),
              taskDuration(task, now),
              taskOutcome(task),
              html`<span class="message">${task.history.at(-1)?.status ?? ''}</span>`,
            ]),
          );
    return {
      title: 'Tasks and operations',
      sections: [
        { id: 'tasks', title: 'Recent tasks', body: taskList },
        { id: 'operations', title: 'Recent operations', body: operationsTable(operations, now) },
      ],
    };
  },
});
