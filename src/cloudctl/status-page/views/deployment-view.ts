// One deployment: what it is, the decisions waiting on it (Approve and Reject of a manual pause, for
// users who may decide it, beside the diff of the plan approving applies; Rollback of a finished
// deployment that deployed something, for users who may change every account), each target with its
// steps (status, timing, message, the webhook job's own words), the preview URLs of its exposeServices
// steps, and the log. Readable as GET /deployments/{id} is: READ on every account, else the refusal
// page. The forms go through the same functions as the API's approve, reject and rollback.
import { z } from 'zod';
import {
  deploymentView as apiView,
  type DeploymentView,
  decideApproval,
  mayDecide,
  mayRollBack,
  mayRollBackNow,
  readableDeployment,
  rollBackDeployment,
  type StoredDeployment,
  waitingApprovals,
} from '../../deployments/index.ts';
import { HttpError } from '../../http/index.ts';
import type { PlanRecord } from '../../plans/index.ts';
import { formatDuration, formatTime, timeAgo } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { smallMarkdown } from '../small-markdown.ts';
import { defineAction, defineView, type ViewContext } from '../status-view.ts';
import { planCounts, planDiff } from './plan-diff.ts';
import { planPage } from './plan-view.ts';
import { badge, code, table } from './table.ts';

const params = z.object({ id: z.string().min(1).max(100) });

const decisionForm = z.object({
  target: z.string().min(1).max(200),
  // An empty field is no message.
  message: z
    .string()
    .max(10_000)
    .optional()
    .transform((m) => m || undefined),
});

function page(id: string): string {
  return `/status/deployments/${encodeURIComponent(id)}`;
}

function at(iso: string | undefined): Date | undefined {
  return iso === undefined ? undefined : new Date(iso);
}

/** From start to finish, or so far; nothing before it starts. */
function duration(startedAt: string | undefined, finishedAt: string | undefined, now: Date): SafeHtml {
  const start = at(startedAt);
  if (start === undefined) return html``;
  const end = at(finishedAt);
  if (end === undefined)
    return html`<span class="muted">${formatDuration(now.getTime() - start.getTime())} so far</span>`;
  return html`${formatDuration(end.getTime() - start.getTime())}`;
}

function summary(view: DeploymentView, now: Date): SafeHtml {
  const created = new Date(view.createdAt);
  const finished = view.status === 'RUNNING' ? undefined : view.updatedAt;
  return html`<dl class="facts">
<dt>Deployment</dt><dd>${code(view.id)}</dd>
<dt>Application</dt><dd>${view.application}</dd>
<dt>Status</dt><dd data-deployment-status="${view.status}">${badge(view.status)}</dd>
<dt>Started</dt><dd>${formatTime(created)} (${timeAgo(created, now)}) by ${view.createdBy}</dd>
<dt>Duration</dt><dd>${duration(view.createdAt, finished, now)}</dd>
<dt>Targets</dt><dd><ul class="inline">${view.targets.map((t) => html`<li>${t.name} ${badge(t.status)} <span class="muted">${t.account}</span></li>`)}</ul></dd>
</dl>`;
}

/**
 * What approving applies: the plan the approval carries, drawn as the plan view draws it, with a link
 * to it. Absolute times only, as the forms beside it (see `decisions`).
 */
async function approvalPlan(context: ViewContext, planId: string | undefined): Promise<SafeHtml> {
  if (planId === undefined)
    return html`<p class="muted" data-no-plan>No plan: approving lets the deployment go on as it is written.</p>`;
  let plan: PlanRecord;
  try {
    plan = await context.sources.plans.read(context.user, planId);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return html`<p class="muted" data-plan="${planId}">Plan ${code(planId)} cannot be shown: ${error.message}</p>`;
  }
  return html`<div class="approval-plan" data-plan="${plan.id}">
<p>Approving applies <a href="${planPage(plan.id)}">plan ${code(plan.id.slice(0, 8))}</a>, made ${formatTime(new Date(plan.createdAt))}, valid until ${formatTime(new Date(plan.expiresAt))}: ${planCounts(plan.summary)}. If an object changed since, nothing is written and the step says which.</p>
<details open><summary>What it would change</summary>${planDiff(plan)}</details>
</div>`;
}

/**
 * The forms, for those who may use them. Its markup holds no relative time, so it changes only when
 * what waits changes, and a live update does not wipe a message being typed.
 */
async function decisions(context: ViewContext, stored: StoredDeployment): Promise<SafeHtml> {
  const { guard } = context.sources;
  const { user } = context;
  const waiting = await Promise.all(
    waitingApprovals(stored).map(async (w) => ({ ...w, may: await mayDecide(guard, user, w) })),
  );
  const rollback = mayRollBackNow(stored) && (await mayRollBack(guard, user, stored));
  const action = page(stored.id);
  const plans = await Promise.all(waiting.map(({ step }) => approvalPlan(context, step.plan?.id)));
  const approvals = waiting.map(({ target, step, may }, i) => {
    const roles = step.requiresRoles ?? [];
    const until = at(step.until);
    return html`<div class="decision" data-approval="${target.name}">
<p><strong>${target.name}</strong> waits: ${step.label}${until === undefined ? '' : html`, until ${formatTime(until)}`}.</p>
${plans[i]}
${
  may
    ? html`<form method="post" action="${action}/approve" class="decide">
<input type="hidden" name="target" value="${target.name}">
<label>Message <input name="message" maxlength="10000" autocomplete="off"></label>
<button type="submit" data-action="approve">Approve</button>
<button type="submit" formaction="${action}/reject" data-action="reject">Reject</button>
</form>`
    : html`<p class="muted" data-may-not-decide>You may not decide it: that needs WRITE on account ${target.account}${roles.length > 0 ? ` and one of the roles ${roles.join(', ')}` : ''}.</p>`
}
</div>`;
  });
  const rollbackForm = rollback
    ? html`<form method="post" action="${action}/rollback" class="decide">
<p>Roll back every target that deployed: previous versions restored, new ones scaled to 0.</p>
<button type="submit" data-action="rollback">Rollback</button>
</form>`
    : '';
  if (approvals.length === 0 && rollbackForm === '')
    return html`<p class="muted" data-nothing-to-decide>Nothing waits for a decision.</p>`;
  return html`${approvals}${rollbackForm}`;
}

function stepMessage(step: DeploymentView['targets'][number]['steps'][number]): SafeHtml {
  const until = step.status === 'RUNNING' ? at(step.until) : undefined;
  return html`${step.message === undefined ? '' : html`<div class="message">${step.message}</div>`}${
    until === undefined ? '' : html`<div class="muted">until ${formatTime(until)}</div>`
  }${step.mdMessage === undefined ? '' : html`<div class="md message" data-md>${smallMarkdown(step.mdMessage)}</div>`}${
    step.planId === undefined
      ? ''
      : html`<div data-step-plan="${step.planId}"><a href="${planPage(step.planId)}">plan ${code(step.planId.slice(0, 8))}</a> <span class="muted">of ${step.plannedStep ?? 'the next step that writes'}</span></div>`
  }`;
}

function targets(view: DeploymentView, now: Date): SafeHtml {
  return html`${view.targets.map(
    (t) => html`<article class="target" data-target="${t.name}" data-status="${t.status}">
<h3>${t.name} ${badge(t.status)}</h3>
<dl class="facts">
<dt>Account</dt><dd>${t.account}${t.namespace === undefined ? '' : html` <span class="muted">namespace ${t.namespace}</span>`}</dd>
<dt>Strategy</dt><dd>${t.strategy}</dd>
<dt>Started</dt><dd>${timeAgo(at(t.startedAt), now)}</dd>
<dt>Duration</dt><dd>${duration(t.startedAt, t.finishedAt, now)}</dd>
${t.message === undefined ? '' : html`<dt>Message</dt><dd class="message" data-target-message>${t.message}</dd>`}
${
  t.workloads === undefined
    ? ''
    : html`<dt>Workloads</dt><dd><ul class="plain">${t.workloads.map(
        (w) =>
          html`<li>${w.namespace}/${w.name}: ${code(w.replicaSet)} of ${w.desired}${w.previous.length === 0 ? '' : html` <span class="muted">(previous: ${w.previous.map((p) => `${p.name} at ${p.replicas}`).join(', ')})</span>`}</li>`,
      )}</ul></dd>`
}
</dl>
${table(
  ['Step', 'Phase', 'Status', 'Started', 'Duration', 'Message'],
  t.steps.map((s) => [
    html`<span data-step="${s.key}" data-status="${s.status}">${s.label}</span>`,
    s.phase,
    badge(s.status),
    s.startedAt === undefined ? '' : timeAgo(at(s.startedAt), now),
    duration(s.startedAt, s.finishedAt, now),
    stepMessage(s),
  ]),
)}
</article>`,
  )}`;
}

/** The preview URLs of the deployment's exposeServices steps, with their state and end. */
function previews(view: DeploymentView): SafeHtml {
  const links = view.previews ?? [];
  if (links.length === 0) return html`<p class="muted">No preview URLs.</p>`;
  return table(
    ['Service', 'Target', 'State', 'Until', 'URL'],
    links.map((p) => [
      html`<span data-preview="${p.id}" data-state="${p.state}">${p.namespace}/${p.service}</span>`,
      p.target,
      badge(p.state),
      formatTime(new Date(p.revokedAt ?? p.expiresAt)),
      p.state === 'ACTIVE' ? html`<a href="${p.url}" rel="noreferrer" target="_blank">${p.url}</a>` : '',
    ]),
  );
}

function log(view: DeploymentView): SafeHtml {
  if (view.log.length === 0) return html`<p class="muted">Nothing logged yet.</p>`;
  return html`<ol class="log">${view.log.map(
    (entry) =>
      html`<li><time datetime="${entry.at}">${formatTime(new Date(entry.at))}</time> ${entry.target === undefined ? '' : html`<strong>${entry.target}</strong> `}<span class="message">${entry.message}</span></li>`,
  )}</ol>`;
}

export const deploymentView = defineView({
  url: '/status/deployments/:id',
  params,
  async render(context, { id }) {
    const stored = await readableDeployment(context.sources.deployments, context.user, id);
    const view = apiView(stored, await context.sources.previews.ofDeployment(stored.id));
    return {
      title: `Deployment of ${view.application} ${view.id.slice(0, 8)}`,
      sections: [
        { id: 'deployment', title: 'Deployment', body: summary(view, context.now) },
        { id: 'decisions', title: 'Decisions', body: await decisions(context, stored) },
        { id: 'targets', title: 'Targets', body: targets(view, context.now) },
        { id: 'previews', title: 'Preview URLs', body: previews(view) },
        { id: 'log', title: 'Log', body: log(view) },
      ],
    };
  },
  actions: {
    approve: defineAction(params, {
      form: decisionForm,
      async run({ sources, user }, { id }, form) {
        await decideApproval(sources.deployments, user, id, { verdict: true, ...form });
      },
    }),
    reject: defineAction(params, {
      form: decisionForm,
      async run({ sources, user }, { id }, form) {
        await decideApproval(sources.deployments, user, id, { verdict: false, ...form });
      },
    }),
    rollback: defineAction(params, {
      form: z.object({}),
      async run({ sources, user }, { id }) {
        await rollBackDeployment(sources.deployments, user, id);
      },
    }),
  },
});
