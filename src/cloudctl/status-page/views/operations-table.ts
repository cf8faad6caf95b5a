// Operations sent to agents, newest first: type, account, agent, when sent, how long until the
// agent's result, and the outcome (sent while it runs; timed_out when nobody waits any more).
import { describeFailure } from '../../../contract/index.ts';
import type { StoredOperation } from '../../operations/index.ts';
import { formatDuration, timeAgo } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { badge, code, emptyState, table } from './table.ts';

/** How many operations a list shows. */
export const RECENT_OPERATIONS = 50;

export function operationDuration(operation: StoredOperation, now: Date): SafeHtml {
  if (operation.reportedAt !== null)
    return html`${formatDuration(operation.reportedAt.getTime() - operation.createdAt.getTime())}`;
  return html`<span class="muted">${formatDuration(now.getTime() - operation.createdAt.getTime())} so far</span>`;
}

export function operationsTable(operations: readonly StoredOperation[], now: Date): SafeHtml {
  if (operations.length === 0)
    return emptyState(
      'No operations yet.',
      'Operations appear here when a task (POST /ops) or a read sends work to an agent.',
    );
  return table(
    ['Operation', 'Type', 'Account', 'Agent', 'Sent', 'Duration', 'Outcome'],
    operations.map((op) => [
      html`<span data-operation="${op.id}">${code(op.id.slice(0, 8))}</span>`,
      op.type,
      html`<a href="/status/accounts/${encodeURIComponent(op.account)}">${op.account}</a>`,
      op.agentId,
      timeAgo(op.createdAt, now),
      operationDuration(op, now),
      html`<span data-outcome="${op.state}">${badge(op.state)}</span>${op.error === null ? '' : html`<div class="message">${describeFailure(op.error)}</div>`}`,
    ]),
  );
}
