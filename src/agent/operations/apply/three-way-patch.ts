// The three-way patch of client-side apply, from the last applied configuration (original), the new
// manifest (modified) and the live object (current): fields the agent applied before and dropped
// now are deleted, fields it sets are set where they differ, and everything else (fields other
// managers set) is left alone. With a patch schema the result is a strategic merge patch (lists
// merged by key, `$patch: delete`, `$deleteFromPrimitiveList`, `$setElementOrder`); without, a JSON
// merge patch (RFC 7386), where lists are replaced whole.
import { isDeepStrictEqual } from 'node:util';
import type { PatchSchema } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';

type Json = Record<string, unknown>;

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const keyOf = (item: Json, mergeKey: string) => JSON.stringify(item[mergeKey]);

function mergeList(patch: Json, key: string, o: unknown, m: unknown[], c: unknown, schema: PatchSchema) {
  const mergeKey = schema.mergeKey;
  if (mergeKey === undefined) {
    // A set of scalars (finalizers and the like).
    const deleted = asList(o).filter((x) => !m.some((y) => isDeepStrictEqual(x, y)));
    const added = m.filter((x) => !asList(c).some((y) => isDeepStrictEqual(x, y)));
    if (deleted.length > 0) patch[`$deleteFromPrimitiveList/${key}`] = deleted;
    if (added.length > 0) patch[key] = added;
    return;
  }
  const originals = new Map(
    asList(o)
      .filter(isRecord)
      .map((i) => [keyOf(i, mergeKey), i]),
  );
  const currents = new Map(
    asList(c)
      .filter(isRecord)
      .map((i) => [keyOf(i, mergeKey), i]),
  );
  const wanted = m.filter(isRecord);
  const items: Json[] = [];
  for (const [k, item] of originals) {
    const stillWanted = wanted.some((w) => keyOf(w, mergeKey) === k);
    if (!stillWanted && currents.has(k)) items.push({ [mergeKey]: item[mergeKey], $patch: 'delete' });
  }
  for (const item of wanted) {
    const live = currents.get(keyOf(item, mergeKey));
    if (live === undefined) {
      items.push(item);
      continue;
    }
    const sub = diff(originals.get(keyOf(item, mergeKey)), item, live, schema.items());
    if (Object.keys(sub).length > 0) items.push({ [mergeKey]: item[mergeKey], ...sub });
  }
  if (items.length > 0) {
    patch[key] = items;
    patch[`$setElementOrder/${key}`] = wanted.map((w) => ({ [mergeKey]: w[mergeKey] }));
  }
}

function diff(
  original: unknown,
  modified: Json,
  current: unknown,
  schema: PatchSchema | undefined | null,
): Json {
  const o = isRecord(original) ? original : {};
  const c = isRecord(current) ? current : {};
  const strategic = schema !== null;
  const patch: Json = {};
  for (const key of Object.keys(o)) if (!(key in modified) && key in c) patch[key] = null;
  for (const [key, m] of Object.entries(modified)) {
    const field = strategic ? schema?.field(key) : undefined;
    if (isRecord(m) && isRecord(c[key])) {
      const sub = diff(o[key], m, c[key], strategic ? field : null);
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (strategic && Array.isArray(m) && field?.strategy.split(',').includes('merge')) {
      mergeList(patch, key, o[key], m, c[key], field);
    } else if (!isDeepStrictEqual(m, c[key])) {
      patch[key] = m;
    }
  }
  return patch;
}

/** A strategic merge patch when `schema` is given, else a JSON merge patch. */
export function threeWayPatch(
  original: unknown,
  modified: Json,
  current: Json,
  schema: PatchSchema | undefined,
): Json {
  return diff(original, modified, current, schema === undefined ? null : schema);
}
