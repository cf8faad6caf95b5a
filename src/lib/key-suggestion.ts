// The known key a misspelt one most likely meant, for "did you mean …?" on unknown config keys: a
// sibling first (`prot` → `port`), else any key path whose last part is close (`grpc` → `cloudctl.grpc`).
import { nearest } from './did-you-mean.ts';
import type { SchemaIndex } from './schema-walk.ts';

function leafPaths(index: SchemaIndex): string[] {
  return [...index.children.entries()].flatMap(([parent, keys]) =>
    [...keys].map((key) => (parent === '' ? key : `${parent}.${key}`)),
  );
}

/**
 * `parent` is the pattern of the map holding `key` (SchemaIndex's form: `users[]`, '' for the top).
 * Returns a sibling's name, or a full key path when the nearest match sits elsewhere.
 */
export function suggestKey(key: string, parent: string, index: SchemaIndex): string | undefined {
  const sibling = nearest(key, index.children.get(parent) ?? []);
  if (sibling !== undefined) return sibling;
  const byLeaf = new Map(leafPaths(index).map((p) => [p.slice(p.lastIndexOf('.') + 1).replace('[]', ''), p]));
  const leaf = nearest(key, byLeaf.keys());
  return leaf === undefined ? undefined : byLeaf.get(leaf);
}

/** `; did you mean 'x'?`, or nothing: the tail of an unknown-key message. */
export function didYouMean(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : `; did you mean '${suggestion}'?`;
}
