// `config print`: the effective configuration as YAML, every default filled, with secrets hidden.
// A value that came from a secret reference is shown as that reference (it names where the secret
// lives, not the secret); a secret written inline is shown as <redacted>.
import { dump } from 'js-yaml';
import { isRecord } from '../../lib/is-record.ts';
import { patternOf } from '../../lib/schema-walk.ts';
import { formatKeyPath, type KeyPath } from '../../lib/yaml-source.ts';
import type { LoadedConfig } from './load-config.ts';
import { schemaIndexes } from './load-config.ts';

export const REDACTED = '<redacted>';

export function redactedConfig(loaded: LoadedConfig): unknown {
  const secretPatterns = schemaIndexes()[loaded.config.variant].secretPaths;
  const references = new Map(loaded.secretReferences.map((r) => [formatKeyPath(r.path), r.reference]));
  const copy = (value: unknown, path: KeyPath): unknown => {
    const reference = references.get(formatKeyPath(path));
    if (reference !== undefined) return reference;
    if (typeof value === 'string' && secretPatterns.has(patternOf(path))) return REDACTED;
    if (Array.isArray(value)) return value.map((item, i) => copy(item, [...path, i]));
    if (isRecord(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v, [...path, k])]));
    return value;
  };
  return copy(loaded.config, []);
}

export function printEffectiveConfig(loaded: LoadedConfig): string {
  return dump(redactedConfig(loaded), { lineWidth: 120, noRefs: true });
}
