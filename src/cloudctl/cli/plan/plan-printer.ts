// A plan as `cloudctl plan`, `deploy -f FILE --plan` and `apply-plan` print it, in the manner of
// `kubectl diff`: per object a header naming the action, kind, namespace/name and account; per changed
// path a `-` line with the value before and a `+` line with the value after (red and green when colour
// is asked for); then what stops the apply (the API server's dry-run refusal, in its own words, and
// the writes the agent's identity may not do), what is not known until it runs, a summary, the plan's
// id and the command that applies it. A Secret's data prints `(hidden)` whatever the record holds, so
// a server that failed to flag or blank a value still does not put it on a terminal or in a CI log;
// a value with control characters prints as JSON, so an annotation cannot send escapes to a terminal.
import type { PlanChange, PlannedObjectRecord, PlanRecord } from '../../plans/index.ts';

export interface PlanPrintOptions {
  /** ANSI red and green on the `-` and `+` lines (a terminal without NO_COLOR: see terminal-colour.ts). */
  colour: boolean;
  /** The command line that applies the plan, as the reader would type it. */
  applyCommand: string;
}

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const RESET = '\u001b[0m';
const HIDDEN = '(hidden)';

/** A control character (C0, DEL, C1): a line break, or an escape sequence a terminal would obey. */
const hasControl = (text: string) =>
  [...text].some((c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });

/** Text that reads as a JSON value (`3`, `true`, `null`, `"x"`): printed bare, a string would pass for it. */
function readsAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A value on one line: a string as it is, unless a control character (a line break, an escape sequence
 * an annotation could carry to the reader's terminal), edge blanks or emptiness would hide what it is,
 * or it would pass for a number, boolean or null: then, like every other value, as JSON.
 */
export function valueText(value: unknown): string {
  if (
    typeof value === 'string' &&
    value !== '' &&
    value.trim() === value &&
    !hasControl(value) &&
    !readsAsJson(value)
  )
    return value;
  return JSON.stringify(value) ?? String(value);
}

/** A Secret's values: hidden when the server flags the change, and under data/stringData whatever it says. */
function isSecretValue(object: PlannedObjectRecord, change: PlanChange): boolean {
  return (
    change.secret === true || (object.kind === 'Secret' && /^(data|stringData)([.[]|$)/.test(change.path))
  );
}

function changeLines(object: PlannedObjectRecord, change: PlanChange, colour: boolean): string[] {
  const paint = (code: string, line: string) => (colour ? `${code}${line}${RESET}` : line);
  const shown = (value: unknown) => (isSecretValue(object, change) ? HIDDEN : valueText(value));
  const lines: string[] = [];
  if ('before' in change) lines.push(paint(RED, `- ${change.path}: ${shown(change.before)}`));
  if ('after' in change) lines.push(paint(GREEN, `+ ${change.path}: ${shown(change.after)}`));
  return lines;
}

function objectName(object: PlannedObjectRecord): string {
  return object.namespace === undefined || object.namespace === ''
    ? object.name
    : `${object.namespace}/${object.name}`;
}

function accessText(access: PlannedObjectRecord['access'][number]): string {
  const resource = `${access.group === '' ? '' : `${access.group}/`}${access.resource}${access.subresource === undefined ? '' : `/${access.subresource}`}`;
  const where = access.namespace === undefined ? ' (cluster-wide)' : ` in namespace ${access.namespace}`;
  return `${access.verb} ${resource}${where}${access.reason === undefined || access.reason === '' ? '' : `: ${access.reason}`}`;
}

function objectLines(object: PlannedObjectRecord, account: string, colour: boolean): string[] {
  const header = `${object.action} ${object.kind} ${objectName(object)} (account ${account})`;
  const lines = [header];
  if (object.action === 'unchanged' || (object.diff.length === 0 && object.action === 'update'))
    lines.push('  no changes');
  for (const change of object.diff)
    lines.push(...changeLines(object, change, colour).map((line) => `  ${line}`));
  if (!object.dryRun.allowed) {
    const reason = object.dryRun.reason === undefined ? '' : ` (${object.dryRun.reason})`;
    lines.push(`  ! refused by the API server${reason}: ${object.dryRun.message ?? 'no message given'}`);
  }
  for (const access of object.access.filter((a) => !a.allowed))
    lines.push(`  ! the agent may not ${accessText(access)}`);
  for (const unknown of object.unknown) lines.push(`  ? not known until it runs: ${unknown}`);
  return lines;
}

/** `1 to create, 2 to update, 0 unchanged, 0 to delete`, and what stops the apply when something does. */
export function summaryLine(plan: PlanRecord): string {
  const { create, update, unchanged, delete: removed, refused, forbidden } = plan.summary;
  const counts = `${create} to create, ${update} to update, ${unchanged} unchanged, ${removed} to delete`;
  const problems = [
    ...(refused === 0 ? [] : [`${refused} refused by the API server's dry run`]),
    ...(forbidden === 0 ? [] : [`${forbidden} needing permissions the agent lacks`]),
  ];
  return `Plan: ${counts}${problems.length === 0 ? '.' : `; ${problems.join(', ')}.`}`;
}

export function planLines(plan: PlanRecord, options: PlanPrintOptions): string[] {
  const lines: string[] = [];
  for (const operation of plan.operations) {
    lines.push(`# ${operation.name} (account ${operation.account}): ${operation.description}`);
    for (const object of operation.objects)
      lines.push(...objectLines(object, operation.account, options.colour));
    for (const unknown of operation.unknown) lines.push(`? not known until it runs: ${unknown}`);
    lines.push('');
  }
  lines.push(summaryLine(plan));
  if (plan.state === 'applied' && plan.applied !== undefined)
    lines.push(
      `Plan ${plan.id} was applied by ${plan.applied.by} at ${plan.applied.at}: ${plan.applied.resourceUri}`,
    );
  else if (plan.state === 'expired') lines.push(`Plan ${plan.id} expired at ${plan.expiresAt}; plan again.`);
  else {
    lines.push(`Plan ${plan.id}, until ${plan.expiresAt}. To apply exactly this plan:`);
    lines.push(`  ${options.applyCommand}`);
  }
  return lines;
}
