// The actions the applications view offers on a workload, where the user has WRITE on its account:
// each a button naming what it will do, which the page's script confirms and then posts to
// /status/api/ops as the Spinnaker operation it names (the same converter the API runs). Which ones
// apply follows the converters: scale (deployment, replicaSet, statefulSet), the rollouts
// (deployment, statefulSet, daemonSet; pause and resume on a deployment), enable/disable (a
// replicaSet: its traffic), delete (any). A version a Deployment manages is steered through it.

import type { WorkloadFacts } from '../application-facts.ts';
import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';

export interface ActionButton {
  /** The operation's name in POST /ops. */
  operation: string;
  label: string;
  /** What it will do, in the confirmation. */
  says: string;
  /** Extra fields of the operation (the scale's replicas is asked for in the confirmation). */
  fields?: Record<string, string | number>;
}

const ROLLABLE = new Set(['deployment', 'statefulSet', 'daemonSet']);
const SCALABLE = new Set(['deployment', 'replicaSet', 'statefulSet']);

/** The actions on the workload; `managed`: a version a Deployment controls (its manager acts). */
export function actionsFor(
  w: WorkloadFacts,
  options: { managed: boolean; traffic?: boolean },
): ActionButton[] {
  const target = `${w.kind} ${w.name}`;
  const where = `in ${w.account}/${w.namespace}`;
  const out: ActionButton[] = [];
  if (SCALABLE.has(w.kind) && !options.managed)
    out.push({
      operation: 'scaleManifest',
      label: 'Scale',
      says: `Scale ${target} ${where} to the replicas below.`,
      fields: { replicas: w.replicas.desired },
    });
  if (ROLLABLE.has(w.kind)) {
    out.push({
      operation: 'rollingRestartManifest',
      label: 'Restart',
      says: `Restart every pod of ${target} ${where}, a few at a time.`,
    });
    if (w.kind === 'deployment')
      out.push(
        w.status?.paused.state === true
          ? { operation: 'resumeRolloutManifest', label: 'Resume', says: `Resume the rollout of ${target}.` }
          : { operation: 'pauseRolloutManifest', label: 'Pause', says: `Pause the rollout of ${target}.` },
      );
    out.push({
      operation: 'undoRolloutManifest',
      label: 'Undo',
      says: `Roll ${target} ${where} back to its previous revision.`,
      fields: { numRevisionsBack: 1 },
    });
  }
  if (w.kind === 'replicaSet' && options.traffic !== undefined)
    out.push(
      options.traffic
        ? {
            operation: 'disableManifest',
            label: 'Disable',
            says: `Take ${target} out of its load balancers: it stops taking traffic.`,
          }
        : {
            operation: 'enableManifest',
            label: 'Enable',
            says: `Put ${target} behind its load balancers: it takes traffic.`,
          },
    );
  out.push({ operation: 'deleteManifest', label: 'Delete', says: `Delete ${target} ${where}.` });
  return out;
}

function button(w: WorkloadFacts, action: ActionButton): SafeHtml {
  const fields = action.fields === undefined ? undefined : JSON.stringify(action.fields);
  return html`<button type="button" class="action" data-operation="${action.operation}" data-account="${w.account}" data-location="${w.namespace}" data-manifest="${w.kind} ${w.name}" data-says="${action.says}"${fields === undefined ? '' : html` data-fields="${fields}"`}>${action.label}</button>`;
}

/** The buttons, or nothing where the user may not write to the account (the API refuses anyway). */
export function actionCell(
  w: WorkloadFacts,
  writable: ReadonlySet<string>,
  options: { managed: boolean; traffic?: boolean },
): HtmlValue {
  if (!writable.has(w.account)) return html`<span class="muted" title="you have READ only">—</span>`;
  return html`<span class="actions">${actionsFor(w, options).map((a) => button(w, a))}</span>`;
}
