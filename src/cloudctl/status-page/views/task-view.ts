// One task: who started it and when, its outcome and duration, each step with the operation sent for
// it, its history and its result objects. A task the user may not read is "not found", as GET
// /task/{id} answers: its id reveals nothing.

import { z } from 'zod';
import { describeFailure } from '../../../contract/index.ts';
import { HttpError } from '../../http/index.ts';
import { taskView as taskAnswer, taskReader } from '../../tasks/index.ts';
import { formatTime, timeAgo } from '../format.ts';
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { operationDuration } from './operations-table.ts';
import { badge, code, emptyState, table } from './table.ts';
import { taskDuration, taskOutcome } from './task-outcome.ts';

export const taskView = defineView({
  url: '/status/tasks/:id',
  params: z.object({ id: z.string().min(1) }),
  async render(context, params) {
    const { sources, user, now } = context;
    const task = await sources.store.tasks.get(params.id);
    if (task === undefined || !(await taskReader(user, sources.guard))(task)) {
      throw new HttpError('NOT_FOUND', `Task not found (id: ${params.id})`);
    }
    const operations = await Promise.all(
      task.steps.map((step) =>
        step.operationId === null ? undefined : sources.store.operations.get(step.operationId),
      ),
    );
    const summary = html`<dl class="facts">
<dt>Task</dt><dd>${code(task.id)}</dd>
<dt>Outcome</dt><dd>${taskOutcome(task)}</dd>
<dt>Started</dt><dd>${formatTime(task.createdAt)} (${timeAgo(task.createdAt, now)}) by ${task.user}</dd>
<dt>Duration</dt><dd>${taskDuration(task, now)}</dd>
<dt>Accounts</dt><dd>${task.accounts.map((a, i) => html`${i > 0 ? ', ' : ''}<a href="/status/accounts/${encodeURIComponent(a)}">${a}</a>`)}</dd>
${task.requestId === null ? '' : html`<dt>Request id</dt><dd>${code(task.requestId)}</dd>`}
</dl>`;
    const steps = table(
      ['#', 'Step', 'Account', 'Description', 'Operation', 'Duration', 'Outcome'],
      task.steps.map((step, i) => {
        const op = operations[i];
        return [
          i + 1,
          step.name,
          step.account,
          step.description,
          op === undefined
            ? html`<span class="muted">${i < task.nextStep ? '—' : 'not sent yet'}</span>`
            : html`${op.type} ${code(op.id.slice(0, 8))}`,
          op === undefined ? '' : operationDuration(op, now),
          op === undefined
            ? ''
            : html`${badge(op.state)}${op.error === null ? '' : html`<div class="message">${describeFailure(op.error)}</div>`}`,
        ];
      }),
    );
    const history =
      task.history.length === 0
        ? emptyState('No history yet.', '')
        : html`<ol class="history">${task.history.map((h) => html`<li><span class="muted">${h.phase}</span> ${h.status}</li>`)}</ol>`;
    // Exactly what GET /task/{id} answers: the documented result objects, in the document's shape.
    const { resultObjects } = taskAnswer(task);
    const results =
      resultObjects.length === 0
        ? html`<p class="muted">No result objects${task.state === 'STARTED' ? ' yet' : ''}.</p>`
        : html`<pre class="json">${JSON.stringify(resultObjects, null, 2)}</pre>`;
    return {
      title: `Task ${task.id.slice(0, 8)}`,
      sections: [
        { id: 'task', title: 'Task', body: summary },
        { id: 'steps', title: 'Steps', body: steps },
        { id: 'history', title: 'History', body: history },
        { id: 'results', title: 'Result objects', body: results },
      ],
    };
  },
});
