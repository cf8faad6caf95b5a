// Compares the keys a file uses with the keys its variant knows. A key of another variant is an
// error that names the variant; any other unknown key is a warning with the nearest known key, except
// inside account entries, where unused properties are expected (copied from the control plane) and
// only noted at debug level.
import { nearest } from '../../lib/did-you-mean.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { KeyPath } from '../../lib/yaml-source.ts';
import { VARIANTS, type Variant } from './schema/variant.ts';
import { patternOf, type SchemaIndex } from './schema-walk.ts';

export interface KeyFinding {
  severity: 'error' | 'warning' | 'debug';
  path: KeyPath;
  message: string;
}

const ACCOUNT_ENTRY = 'orchestrator.accounts[]';

function leafPaths(index: SchemaIndex): string[] {
  return [...index.children.entries()].flatMap(([parent, keys]) =>
    [...keys].map((key) => (parent === '' ? key : `${parent}.${key}`)),
  );
}

export function checkKeys(
  raw: unknown,
  variant: Variant,
  indexes: Record<Variant, SchemaIndex>,
): KeyFinding[] {
  const findings: KeyFinding[] = [];
  const own = indexes[variant];
  const visit = (value: unknown, path: KeyPath) => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...path, i]);
      return;
    }
    if (!isRecord(value)) return;
    const pattern = patternOf(path);
    const known = own.children.get(pattern);
    if (known === undefined || own.selfChecked.has(pattern)) return;
    for (const [key, child] of Object.entries(value)) {
      const keyPath = [...path, key];
      if (known.has(key)) {
        visit(child, keyPath);
        continue;
      }
      const elsewhere = VARIANTS.filter((v) => v !== variant && indexes[v].children.get(pattern)?.has(key));
      if (elsewhere.length > 0) {
        findings.push({
          severity: 'error',
          path: keyPath,
          message: `'${key}' exists only in variant ${elsewhere.join(' and ')}, and this file is variant ${variant} (set 'variant: ${elsewhere[0]}' at the top if the file is written for it)`,
        });
      } else if (pattern === ACCOUNT_ENTRY || pattern.startsWith(`${ACCOUNT_ENTRY}.`)) {
        findings.push({
          severity: 'debug',
          path: keyPath,
          message: `unused account property '${key}' ignored`,
        });
      } else {
        const sibling = nearest(key, known);
        const hint = sibling !== undefined ? `; did you mean '${sibling}'?` : suggestElsewhere(key, own);
        findings.push({
          severity: 'warning',
          path: keyPath,
          message: `unknown key '${key}' is ignored${hint}`,
        });
      }
    }
  };
  visit(raw, []);
  return findings;
}

function suggestElsewhere(key: string, index: SchemaIndex): string {
  const paths = leafPaths(index);
  const byLeaf = new Map(paths.map((p) => [p.slice(p.lastIndexOf('.') + 1).replace('[]', ''), p]));
  const leaf = nearest(key, byLeaf.keys());
  return leaf === undefined ? '' : `; did you mean '${byLeaf.get(leaf)}'?`;
}
