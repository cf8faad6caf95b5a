// The field-level diff of a plan: what a write would change in one object, as JSON paths with the
// value before and after (`spec.template.spec.containers[0].image`), like `kubectl diff` but per field.
// Leaves are compared, so an added or removed object is its fields one by one, and a list is compared
// item by item (a list grown or shrunk is its extra items). What the API server keeps for itself is left
// out (uid, resourceVersion, generation, status, ...): it changes on every write and says nothing about
// the user's change. A Secret's values reach cloudctl only as digests (the agent's plan): a changed one
// is said to change, `(hidden)`, and an unchanged one is no change.
import { isRecord } from '../../lib/is-record.ts';
import type { PlanChange } from './plan-record.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The server's bookkeeping under `metadata`, never a user's change. */
const SERVER_METADATA: ReadonlySet<string> = new Set([
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'selfLink',
]);

/** What a Secret's value is shown as: only that it changes is known. */
export const HIDDEN = '(hidden)';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A key appended to a path: `a.b`, or `a["app.kubernetes.io/name"]` for a key that needs quoting. */
function keyPath(path: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Whether a path at the top of an object, or under its metadata, is the server's and not compared. */
function ignored(parents: readonly string[], key: string): boolean {
  if (parents.length === 0) return key === 'status';
  if (parents.length === 1 && parents[0] === 'metadata') return SERVER_METADATA.has(key);
  // Written by `kubectl apply` (and our client-side apply) as a copy of the manifest: its fields are
  // diffed where they live; a Secret's copy would carry its values.
  return (
    parents.length === 2 && parents[0] === 'metadata' && parents[1] === 'annotations' && key === LAST_APPLIED
  );
}

function isSecret(object: Record<string, unknown> | null): boolean {
  return object?.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === undefined);
}

interface Walk {
  changes: PlanChange[];
  secret: boolean;
}

function change(path: string, before: unknown, after: unknown): PlanChange {
  return {
    path,
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  };
}

/** A Secret's value under data or stringData: the digests say whether it changed, never what it is. */
function secretValue(walk: Walk, parents: readonly string[]): boolean {
  return walk.secret && parents.length === 2 && (parents[0] === 'data' || parents[0] === 'stringData');
}

function compare(
  walk: Walk,
  path: string,
  parents: readonly string[],
  before: unknown,
  after: unknown,
): void {
  if (secretValue(walk, parents)) {
    if (before === after) return;
    walk.changes.push({
      path,
      ...(before === undefined ? {} : { before: HIDDEN }),
      ...(after === undefined ? {} : { after: HIDDEN }),
      secret: true,
    });
    return;
  }
  if (Array.isArray(before) || Array.isArray(after)) {
    const left = Array.isArray(before) ? before : undefined;
    const right = Array.isArray(after) ? after : undefined;
    // A list on one side only (or a list against a value) is compared item by item against nothing,
    // unless it is empty: then there is no item to name, and the list itself is the change.
    if ((left === undefined && before !== undefined) || (right === undefined && after !== undefined)) {
      walk.changes.push(change(path, before, after));
      return;
    }
    const length = Math.max(left?.length ?? 0, right?.length ?? 0);
    if (length === 0) {
      if ((left === undefined) !== (right === undefined)) walk.changes.push(change(path, before, after));
      return;
    }
    for (let i = 0; i < length; i++)
      compare(walk, `${path}[${i}]`, [...parents, String(i)], left?.[i], right?.[i]);
    return;
  }
  if (isRecord(before) || isRecord(after)) {
    const left = isRecord(before) ? before : undefined;
    const right = isRecord(after) ? after : undefined;
    if ((left === undefined && before !== undefined) || (right === undefined && after !== undefined)) {
      walk.changes.push(change(path, before, after));
      return;
    }
    const keys = [...new Set([...Object.keys(left ?? {}), ...Object.keys(right ?? {})])];
    if (keys.length === 0) {
      if ((left === undefined) !== (right === undefined)) walk.changes.push(change(path, before, after));
      return;
    }
    for (const key of keys) {
      if (ignored(parents, key)) continue;
      compare(walk, keyPath(path, key), [...parents, key], left?.[key], right?.[key]);
    }
    return;
  }
  if (before !== after) walk.changes.push(change(path, before, after));
}

/**
 * What changes from `live` to `planned`, leaf by leaf, in the order the fields appear; null on either
 * side is an object that does not exist (a create diffs against nothing, a delete to nothing).
 */
export function planDiff(
  live: Record<string, unknown> | null,
  planned: Record<string, unknown> | null,
): PlanChange[] {
  const walk: Walk = { changes: [], secret: isSecret(planned ?? live) };
  compare(walk, '', [], live ?? {}, planned ?? {});
  return walk.changes;
}
