// A key written with nothing after it (`insecure:`, `context:`) is read by YAML as null. The original
// product's account template is full of them and treats them as not set, so do we: the key is dropped
// before the schema sees it and its default applies; a required key stays required. Free maps
// (`logging.fields`, where an empty value means "detect it") and unknown keys are left as written.
import { isRecord } from '../../lib/is-record.ts';
import { patternOf, type SchemaIndex } from '../../lib/schema-walk.ts';
import type { KeyPath } from '../../lib/yaml-source.ts';

export function dropEmptyValues(raw: Record<string, unknown>, index: SchemaIndex): Record<string, unknown> {
  const copy = (value: unknown, path: KeyPath): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => copy(item, [...path, i]));
    if (!isRecord(value)) return value;
    const known = index.children.get(patternOf(path));
    if (known === undefined) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key, child]) => !(child === null && known.has(key)))
        .map(([key, child]) => [key, copy(child, [...path, key])]),
    );
  };
  const result = copy(raw, []);
  return isRecord(result) ? result : raw;
}
