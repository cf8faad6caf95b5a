// A plan as the status page draws it, for the plan view and for a deployment's approval alike: its
// counts in words, then per operation per object what would happen (the action as a word and a
// symbol), the field-level diff as a table of paths with before → after, the API server's refusal
// with its own message, the permissions the agent's identity lacks, and what cannot be known before
// it runs. Everything reads without colour: the colours only repeat words and symbols.
import type { PlanChange, PlannedObjectRecord, PlannedOperation, PlanRecord } from '../../plans/index.ts';
import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';

type Action = PlannedObjectRecord['action'];
type Access = PlannedObjectRecord['access'][number];

/** Each action as a symbol and the words a person reads, in the order of a plan's summary. */
const ACTIONS: Readonly<Record<Action, { symbol: string; words: string }>> = {
  create: { symbol: '+', words: 'create' },
  update: { symbol: '~', words: 'update' },
  delete: { symbol: '−', words: 'delete' },
  unchanged: { symbol: '=', words: 'unchanged' },
  none: { symbol: '·', words: 'no write' },
};

/** A new object with more fields than this shows them folded, under their count. */
const OPEN_FIELDS = 8;

/** A value longer than this is drawn as indented JSON on lines of its own. */
const INLINE_CHARS = 60;

/** "1 to create, 2 to update, 3 unchanged; 1 refused by the API server" */
export function planCounts(summary: PlanRecord['summary']): SafeHtml {
  const parts = [
    summary.create > 0 && `${summary.create} to create`,
    summary.update > 0 && `${summary.update} to update`,
    summary.delete > 0 && `${summary.delete} to delete`,
    summary.unchanged > 0 && `${summary.unchanged} unchanged`,
  ].filter((p) => p !== false);
  const problems = [
    summary.refused > 0 &&
      html`<strong data-refused="${summary.refused}">✗ ${summary.refused} refused by the API server</strong>`,
    summary.forbidden > 0 &&
      html`<strong data-forbidden="${summary.forbidden}">✗ ${summary.forbidden} the agent may not write</strong>`,
  ].filter((p) => p !== false);
  return html`<span class="plan-counts">${parts.length === 0 ? 'no objects' : parts.join(', ')}${problems.map((p) => html`; ${p}`)}</span>`;
}

function actionWord(action: Action): SafeHtml {
  const { symbol, words } = ACTIONS[action];
  return html`<span class="plan-action plan-${action}" data-action="${action}"><span aria-hidden="true">${symbol}</span> ${words}</span>`;
}

/** A JSON value as a person reads it: a string as is, anything else as JSON; long ones on lines. */
function value(v: unknown, secret: boolean): SafeHtml {
  if (secret) return html`<span class="muted">(hidden)</span>`;
  if (v === undefined) return html`<span class="muted">(absent)</span>`;
  if (typeof v === 'string' && v !== '' && v.length <= INLINE_CHARS && !v.includes('\n'))
    return html`<code>${v}</code>`;
  const compact = JSON.stringify(v);
  if (compact.length <= INLINE_CHARS) return html`<code>${compact}</code>`;
  return html`<pre class="value">${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}</pre>`;
}

/** Whether the path is added, removed or changed, as a symbol and a word. */
function changeWord(change: PlanChange): SafeHtml {
  const [symbol, word] =
    change.before === undefined && !change.secret
      ? ['+', 'added']
      : change.after === undefined && !change.secret
        ? ['−', 'removed']
        : ['~', change.secret ? 'changed (secret)' : 'changed'];
  return html`<span class="plan-change plan-change-${word.split(' ')[0]}"><span aria-hidden="true">${symbol}</span> ${word}</span>`;
}

function diffTable(object: PlannedObjectRecord): SafeHtml {
  if (object.diff.length === 0) {
    const why =
      object.action === 'create'
        ? 'A new object: every field is as prepared (see the manifests below).'
        : object.action === 'delete'
          ? 'The whole object goes.'
          : 'No field changes.';
    return html`<p class="muted" data-no-diff>${why}</p>`;
  }
  if (object.action === 'create') return createdFields(object.diff);
  const rows = object.diff.map(
    (c) =>
      html`<tr data-path="${c.path}"><td><code>${c.path}</code></td><td>${changeWord(c)}</td><td class="before${c.before === undefined && !c.secret ? ' absent' : ''}">${value(c.before, c.secret === true)}</td><td class="arrow" aria-label="becomes">→</td><td class="after${c.after === undefined && !c.secret ? ' absent' : ''}">${value(c.after, c.secret === true)}</td></tr>`,
  );
  return html`<div class="scroll"><table class="plan-diff">
<thead><tr><th scope="col" class="path">Path</th><th scope="col" class="change">Change</th><th scope="col">Before</th><th scope="col" class="arrow"><span class="visually-hidden">becomes</span></th><th scope="col">After</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/**
 * A new object's fields: nothing was before, so each path with its value, folded away when there are
 * many (a whole Deployment's), with their count in words.
 */
function createdFields(diff: readonly PlanChange[]): SafeHtml {
  const rows = diff.map(
    (c) =>
      html`<tr data-path="${c.path}"><td><code>${c.path}</code></td><td class="after">${value(c.after, c.secret === true)}</td></tr>`,
  );
  return html`<details class="created-fields"${diff.length <= OPEN_FIELDS ? html` open` : ''}><summary><span aria-hidden="true">+</span> ${diff.length} field${diff.length === 1 ? '' : 's'}, all new</summary><div class="scroll"><table class="plan-diff plan-created">
<thead><tr><th scope="col" class="path">Path</th><th scope="col">Value</th></tr></thead>
<tbody>${rows}</tbody>
</table></div></details>`;
}

/** `delete secrets in namespace shop`, `patch deployments.apps/scale cluster-wide` */
export function permissionWords(a: Access): string {
  const resource = `${a.resource}${a.group === '' ? '' : `.${a.group}`}${a.subresource === undefined ? '' : `/${a.subresource}`}`;
  return `${a.verb} ${resource} ${a.namespace === undefined ? 'cluster-wide' : `in namespace ${a.namespace}`}`;
}

function verdicts(object: PlannedObjectRecord): SafeHtml {
  const { dryRun } = object;
  const refused = dryRun.allowed
    ? ''
    : html`<li class="verdict verdict-refused" data-dry-run="refused"><span aria-hidden="true">✗</span> Refused by the API server's dry run${dryRun.reason === undefined ? '' : html` (${dryRun.reason})`}: <span class="message">${dryRun.message ?? 'no message given'}</span></li>`;
  const missing = object.access.filter((a) => !a.allowed);
  const forbidden = missing.map(
    (a) =>
      html`<li class="verdict verdict-forbidden" data-missing="${permissionWords(a)}"><span aria-hidden="true">✗</span> The agent may not <strong>${permissionWords(a)}</strong>${a.reason === undefined || a.reason === '' ? '' : html` <span class="muted">(${a.reason})</span>`}</li>`,
  );
  const unknown = object.unknown.map(
    (u) =>
      html`<li class="verdict verdict-unknown" data-unknown><span aria-hidden="true">?</span> Not known before it runs: ${u}</li>`,
  );
  const fine =
    dryRun.allowed && missing.length === 0 && object.action !== 'none'
      ? html`<li class="verdict verdict-ok muted"><span aria-hidden="true">✓</span> The API server's dry run accepts it${object.access.length === 0 ? '' : '; the agent may do every write'}.</li>`
      : '';
  return html`<ul class="verdicts">${refused}${forbidden}${unknown}${fine}</ul>`;
}

const objectName = (o: PlannedObjectRecord) =>
  `${o.namespace === undefined ? '' : `${o.namespace}/`}${o.name}`;

function plannedObject(object: PlannedObjectRecord, account: string): SafeHtml {
  const seen =
    object.resourceVersion === null
      ? 'absent when planned'
      : `resourceVersion ${object.resourceVersion} when planned`;
  return html`<article class="planned-object" data-object="${object.kind} ${objectName(object)}" data-action="${object.action}" data-dry-run="${object.dryRun.allowed ? 'accepted' : 'refused'}">
<h4>${actionWord(object.action)} <strong>${object.kind}</strong> ${objectName(object)} <span class="muted">in account ${account} · ${seen}</span></h4>
${verdicts(object)}
${object.action === 'unchanged' || object.action === 'none' ? '' : diffTable(object)}
</article>`;
}

function operation(op: PlannedOperation, index: number): SafeHtml {
  const prepared =
    op.prepared.manifests.length === 0
      ? ''
      : html`<details class="prepared"><summary>The ${op.prepared.manifests.length === 1 ? 'manifest' : `${op.prepared.manifests.length} manifests`} as ${op.prepared.manifests.length === 1 ? 'it' : 'they'} would be applied${op.prepared.boundArtifacts.length === 0 ? '' : `, ${op.prepared.boundArtifacts.length} artifacts bound`}</summary><pre class="json">${JSON.stringify(op.prepared.manifests, null, 2)}</pre>${
          op.prepared.boundArtifacts.length === 0
            ? ''
            : html`<pre class="json">${JSON.stringify(op.prepared.boundArtifacts, null, 2)}</pre>`
        }</details>`;
  const unknown: HtmlValue = op.unknown.map(
    (u) =>
      html`<li class="verdict verdict-unknown" data-unknown><span aria-hidden="true">?</span> Not known before it runs: ${u}</li>`,
  );
  return html`<div class="planned-operation" data-operation="${op.name}">
<h3>${index + 1}. ${op.name} <span class="muted">on account ${op.account}</span></h3>
<p class="op-description">${op.description}</p>
${op.unknown.length === 0 ? '' : html`<ul class="verdicts">${unknown}</ul>`}
${op.objects.length === 0 ? html`<p class="muted">No object to show for it.</p>` : op.objects.map((o) => plannedObject(o, op.account))}
${prepared}
</div>`;
}

/** Every operation of the plan with its objects, in the plan's order. */
export function planDiff(plan: PlanRecord): SafeHtml {
  if (plan.operations.length === 0) return html`<p class="muted">The plan holds no operation.</p>`;
  return html`<div class="plan" data-plan="${plan.id}">${plan.operations.map(operation)}</div>`;
}
