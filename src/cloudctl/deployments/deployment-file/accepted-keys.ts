// Which keys the map at a key path accepts, read from the schema, for "did you mean …?" on unknown
// keys. It follows what src/lib/schema-walk.ts does not need for config files: free maps (`targets`,
// `strategies`), whose entries all share one shape.
import { z } from 'zod';
import type { KeyPath } from '../../../lib/yaml-source.ts';

type AnySchema = z.core.$ZodType;

function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodOptional
    )
      current = current.def.innerType;
    else if (current instanceof z.ZodPipe)
      current = current.def.in instanceof z.ZodTransform ? current.def.out : current.def.in;
    else return current;
  }
}

export function acceptedKeys(schema: AnySchema, path: KeyPath): string[] {
  let node = unwrap(schema);
  for (const part of path) {
    if (node instanceof z.ZodObject && typeof part === 'string' && part in node.shape)
      node = node.shape[part];
    else if (node instanceof z.ZodRecord) node = node.def.valueType;
    else if (node instanceof z.ZodArray && typeof part === 'number') node = node.element;
    else return [];
    node = unwrap(node);
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}
