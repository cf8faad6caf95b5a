// An object that drifted from what cloudctl deployed, as the applications view says it beside the
// object's name: which field manager changed which paths and when, after cloudctl last wrote it (the
// drift the agent reads from managedFields and cloudctl keeps with the cached object), and where the
// user has WRITE a "Re-apply" button: the page's script confirms it, asks the API for a plan of the
// recorded manifest (POST /manifests/{account}/{location}/{name}/reapply) and opens that plan, which
// says what re-applying would change and is applied from there, with the plan's guards.
import type { Drift, DriftingManager } from '../../../contract/index.ts';
import type { ObjectFacts } from '../application-facts.ts';
import { timeAgo } from '../format.ts';
import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';

/** `kubectl (scale)`, `kubectl-edit` */
function managerWords(m: DriftingManager): string {
  return `${m.manager}${m.subresource === undefined ? '' : ` (${m.subresource})`}`;
}

function managerLine(m: DriftingManager, now: Date): SafeHtml {
  const more = m.morePaths > 0 ? ` and ${m.morePaths} more` : '';
  return html`<li data-manager="${m.manager}">${m.paths.map((p, i) => html`${i > 0 ? ', ' : ''}<code>${p}</code>`)}${more} changed by <strong>${managerWords(m)}</strong> ${m.time === null ? html`<span class="muted">(when is not recorded)</span>` : timeAgo(new Date(m.time), now)}</li>`;
}

function reapplyButton(o: ObjectFacts, drift: Drift): SafeHtml {
  const by = [...new Set(drift.managers.map(managerWords))].join(', ');
  const says = `Plan re-applying what cloudctl deployed as ${o.kind} ${o.name} in ${o.account}/${o.namespace}, undoing the changes of ${by}. The plan opens and shows what it would change; nothing is written until you apply it.`;
  return html`<button type="button" class="reapply" data-reapply data-account="${o.account}" data-location="${o.namespace}" data-manifest="${o.kind} ${o.name}" data-says="${says}">Re-apply</button>`;
}

/** Nothing for an object that did not drift; the note, and the button where the user may write. */
export function driftNote(o: ObjectFacts, writable: ReadonlySet<string>, now: Date): HtmlValue {
  if (o.drift === null) return '';
  return html`<div class="drift" data-drift="${o.drift.managers.map((m) => m.manager).join(' ')}"><span aria-hidden="true">⚠</span> <strong>Drifted</strong> from what cloudctl deployed:
<ul class="plain">${o.drift.managers.map((m) => managerLine(m, now))}</ul>${writable.has(o.account) ? reapplyButton(o, o.drift) : ''}</div>`;
}
