// A task's outcome and duration as the status page writes them: running, succeeded or failed (the
// task's state), and from its start to its last change once it ended, or so far.
import type { StoredTask } from '../../tasks/index.ts';
import { formatDuration } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { badge } from './table.ts';

const OUTCOMES = { STARTED: 'running', COMPLETED: 'succeeded', FAILED: 'failed' } as const;

export function taskOutcome(task: StoredTask): SafeHtml {
  return html`<span data-outcome="${OUTCOMES[task.state]}">${badge(OUTCOMES[task.state])}</span>`;
}

export function taskDuration(task: StoredTask, now: Date): SafeHtml {
  if (task.state === 'STARTED')
    return html`<span class="muted">${formatDuration(now.getTime() - task.createdAt.getTime())} so far</span>`;
  return html`${formatDuration(task.updatedAt.getTime() - task.createdAt.getTime())}`;
}
