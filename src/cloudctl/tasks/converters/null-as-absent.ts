// Orca and Jackson write an unset field of an operation description as `null`, and clouddriver reads
// it as absent. nullAsAbsent rebuilds a converter's payload schema so that every optional field of
// every object it describes (nested objects, array items, union options and piped inputs included)
// takes null as absent: its default applies, or it stays unset. It is applied once, to every
// converter (defineConverter), so a field added later is covered without thought. A required field
// given null is still refused, naming the field. What the schema leaves unmodelled (a manifest's
// body, a record's values) is passed on as sent: there null has a meaning of its own (in a merge
// patch, null deletes the field).
import { z } from 'zod';

const absentIfNull = (value: unknown) => (value === null ? undefined : value);

/** Whether an object may lack the field (optional, defaulted): zod's own test for a missing key. */
function isOptional(field: z.core.$ZodType): boolean {
  return field._zod.optin !== undefined;
}

function objectField(field: z.core.$ZodType): z.core.$ZodType {
  const rebuilt = rebuild(field);
  return isOptional(field) ? z.preprocess(absentIfNull, rebuilt) : rebuilt;
}

function inner(wrapper: { def: { innerType: z.core.$ZodType } }): z.core.$ZodType {
  return rebuild(wrapper.def.innerType);
}

/** The schema with null read as absent in every optional field it describes. */
export function nullAsAbsent(schema: z.ZodType): z.ZodType {
  const rebuilt = rebuild(schema);
  // A clone is of its source's class, so a schema built with zod's API stays one.
  return rebuilt instanceof z.ZodType ? rebuilt : schema;
}

function rebuild(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodObject) {
    const shape: Record<string, z.core.$ZodType> = {};
    for (const [key, field] of Object.entries(schema.def.shape)) shape[key] = objectField(field);
    // The clone keeps what the object checks as a whole (refinements) and its unknown-key policy.
    return schema.clone({ ...schema.def, shape });
  }
  // Each wrapper on its own: their clones take differently typed definitions.
  if (schema instanceof z.ZodOptional) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodNullable) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodDefault) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodPrefault) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodCatch) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodReadonly) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodNonOptional) return schema.clone({ ...schema.def, innerType: inner(schema) });
  if (schema instanceof z.ZodArray) {
    return schema.clone({ ...schema.def, element: rebuild(schema.def.element) });
  }
  if (schema instanceof z.ZodUnion) {
    return schema.clone({ ...schema.def, options: schema.def.options.map(rebuild) });
  }
  if (schema instanceof z.ZodIntersection) {
    return schema.clone({ ...schema.def, left: rebuild(schema.def.left), right: rebuild(schema.def.right) });
  }
  if (schema instanceof z.ZodPipe) {
    return schema.clone({ ...schema.def, in: rebuild(schema.def.in), out: rebuild(schema.def.out) });
  }
  return schema;
}
