// One plan (GET /plans/{id}): who made it and when, until when it may be applied, its state, accounts
// and counts; then what applying it would do, per operation per object (plan-diff.ts). Users with
// WRITE on every account of a plan still open get "Apply this plan", which says what it will do and
// runs POST /plans/{id}/apply's own function; the page then shows the task it started, live. A plan
// the user may not read answers the refusal page, as GET /plans/{id} answers 403.
import { z } from 'zod';
import type { PlanRecord } from '../../plans/index.ts';
import { taskReader } from '../../tasks/index.ts';
import { formatTime, timeAgo } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { defineAction, defineView, type ViewContext } from '../status-view.ts';
import { planCounts, planDiff } from './plan-diff.ts';
import { badge, code } from './table.ts';
import { taskOutcome } from './task-outcome.ts';

const params = z.object({ id: z.string().min(1).max(200) });

export function planPage(id: string): string {
  return `/status/plans/${encodeURIComponent(id)}`;
}

/** The page of what applied it: a task's or a deployment's, from the API path the plan names. */
function appliedPage(resourceUri: string): string {
  const deployment = /^\/deployments\/([^/]+)$/.exec(resourceUri);
  if (deployment?.[1] !== undefined) return `/status/deployments/${deployment[1]}`;
  const task = /^\/task\/([^/]+)$/.exec(resourceUri);
  return task?.[1] === undefined ? resourceUri : `/status/tasks/${task[1]}`;
}

/** Its state now: a plan past its expiry reads expired even before the store says so. */
function stateOf(plan: PlanRecord, now: Date): PlanRecord['state'] {
  return plan.state === 'planned' && new Date(plan.expiresAt) <= now ? 'expired' : plan.state;
}

function facts(plan: PlanRecord, now: Date): SafeHtml {
  const created = new Date(plan.createdAt);
  const expires = new Date(plan.expiresAt);
  const state = stateOf(plan, now);
  return html`<dl class="facts">
<dt>Plan</dt><dd>${code(plan.id)}</dd>
<dt>State</dt><dd data-plan-state="${state}">${badge(state)}</dd>
<dt>Made</dt><dd>${formatTime(created)} (${timeAgo(created, now)}) by ${plan.createdBy}${plan.source === 'deployment' ? ' for a deployment' : ''}</dd>
<dt>${state === 'expired' ? 'Expired' : 'Expires'}</dt><dd>${formatTime(expires)} (${timeAgo(expires, now)})</dd>
<dt>Accounts</dt><dd>${plan.accounts.map((a, i) => html`${i > 0 ? ', ' : ''}<a href="/status/accounts/${encodeURIComponent(a)}">${a}</a>`)}</dd>
<dt>Changes</dt><dd data-plan-counts>${planCounts(plan.summary)}</dd>
</dl>`;
}

/** The task (or deployment) that applied it, with its outcome when it is a task the user may read. */
async function applied(context: ViewContext, plan: PlanRecord): Promise<SafeHtml> {
  const { applied } = plan;
  if (applied === undefined) return html``;
  const { tasks } = context.sources.store;
  const task = applied.resourceUri.startsWith('/task/') ? await tasks.get(applied.id) : undefined;
  const readable = task !== undefined && (await taskReader(context.user, context.sources.guard))(task);
  const outcome =
    task === undefined || !readable
      ? ''
      : html` ${taskOutcome(task)} <span class="muted">${task.history.at(-1)?.status ?? ''}</span>`;
  const at = new Date(applied.at);
  return html`<p data-applied="${applied.id}">Applied by ${applied.by} ${timeAgo(at, context.now)}: <a href="${appliedPage(applied.resourceUri)}">${task === undefined ? 'deployment' : 'task'} ${code(applied.id.slice(0, 8))}</a>${outcome}</p>`;
}

/** What applying does, in words, beside the button; or why there is no button. */
async function applySection(context: ViewContext, plan: PlanRecord): Promise<SafeHtml> {
  const state = stateOf(plan, context.now);
  if (state === 'applied') return applied(context, plan);
  if (state === 'expired')
    return html`<p data-expired>This plan expired at ${formatTime(new Date(plan.expiresAt))} and can no longer be applied: the cluster may have moved since. Make a new plan.</p>`;
  const writable = new Set((await context.sources.guard.visible(context.user, 'WRITE')).map((a) => a.name));
  const lacking = plan.accounts.filter((a) => !writable.has(a));
  if (lacking.length > 0)
    return html`<p class="muted" data-may-not-apply>You may not apply it: that needs WRITE on account${lacking.length > 1 ? 's' : ''} ${lacking.join(', ')}.</p>`;
  const objects = plan.operations.reduce((n, op) => n + op.objects.length, 0);
  return html`<form method="post" action="${planPage(plan.id)}/apply" class="decide">
<p data-says>Applying runs exactly these ${plan.operations.length} operation${plan.operations.length === 1 ? '' : 's'} (${objects} object${objects === 1 ? '' : 's'}: ${planCounts(plan.summary)}) on ${plan.accounts.join(', ')} as ${plan.source === 'deployment' ? 'a deployment' : 'a task'}, and only while every object is still as the plan saw it; if one changed since, nothing is written and you are told which.</p>
<button type="submit" data-action="apply">Apply this plan</button>
</form>`;
}

export const planView = defineView({
  url: '/status/plans/:id',
  params,
  async render(context, { id }) {
    const plan = await context.sources.plans.read(context.user, id);
    return {
      title: `Plan ${plan.id.slice(0, 8)}`,
      sections: [
        { id: 'plan', title: 'Plan', body: facts(plan, context.now) },
        { id: 'apply', title: 'Apply', body: await applySection(context, plan) },
        { id: 'changes', title: 'What it would change', body: planDiff(plan) },
      ],
    };
  },
  actions: {
    apply: defineAction(params, {
      form: z.object({}),
      async run({ sources, user }, { id }) {
        await sources.plans.apply(user, id);
      },
    }),
  },
});
