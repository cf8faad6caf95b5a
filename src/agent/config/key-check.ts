// Compares the keys a file uses with the keys its variant knows. A key of another variant is an
// error that names the variant; any other unknown key is a warning with the nearest known key, except
// inside account entries, where unused properties are expected (copied from the control plane) and
// only noted at debug level. A key the product we replace spells differently gets our spelling as its
// suggestion, also inside account entries, where dropping it silently would change the account.
import { isRecord } from '../../lib/is-record.ts';
import { didYouMean, suggestKey } from '../../lib/key-suggestion.ts';
import { patternOf, type SchemaIndex } from '../../lib/schema-walk.ts';
import type { KeyPath } from '../../lib/yaml-source.ts';
import { ORIGINAL_KEYS } from './original-keys.ts';
import { VARIANTS, type Variant } from './schema/variant.ts';

export interface KeyFinding {
  severity: 'error' | 'warning' | 'debug';
  path: KeyPath;
  message: string;
}

const ACCOUNT_ENTRY = 'orchestrator.accounts[]';

export function checkKeys(
  raw: unknown,
  variant: Variant,
  indexes: Record<Variant, SchemaIndex>,
  /** The file said `variant:`; otherwise the variant was inferred from its keys. */
  written = true,
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
      const ours = ORIGINAL_KEYS.get(patternOf(keyPath));
      if (elsewhere.length > 0) {
        findings.push({
          severity: 'error',
          path: keyPath,
          message: written
            ? `'${key}' exists only in variant ${elsewhere.join(' and ')}, and this file is variant ${variant} (set 'variant: ${elsewhere[0]}' at the top if the file is written for it)`
            : `'${key}' exists only in variant ${elsewhere.join(' and ')}, and this file, which does not say its variant, mixes keys of several: read as variant ${variant}, the closest`,
        });
      } else if (ours !== undefined) {
        findings.push({
          severity: 'warning',
          path: keyPath,
          message: `unknown key '${key}' is ignored${didYouMean(ours)} ('${key}' is the original product's name for it)`,
        });
      } else if (pattern === ACCOUNT_ENTRY || pattern.startsWith(`${ACCOUNT_ENTRY}.`)) {
        findings.push({
          severity: 'debug',
          path: keyPath,
          message: `unused account property '${key}' ignored`,
        });
      } else {
        findings.push({
          severity: 'warning',
          path: keyPath,
          message: `unknown key '${key}' is ignored${didYouMean(suggestKey(key, pattern, own))}`,
        });
      }
    }
  };
  visit(raw, []);
  return findings;
}
