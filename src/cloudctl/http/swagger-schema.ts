// Zod schemas as Swagger 2.0 schema objects. Swagger 2.0 takes a subset of JSON Schema draft 4: no
// anyOf/oneOf, no `const`, no `null` type. Routes are written with zod (the single source of their
// types and validation); this turns them into what Swagger 2.0 validators and clients accept.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';

export type JsonSchema = Record<string, unknown>;

/**
 * Metadata key a schema can carry to say how Swagger shows it, where the zod type is not what goes
 * over the wire: a query flag parsed from 'true'/'false' is a boolean to clients.
 */
export const SWAGGER_TYPE = 'swagger';

/** Keys of a Swagger 2.0 schema object; anything else that draft 4 allows is dropped. */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'items',
  'allOf',
  'properties',
  'additionalProperties',
  'discriminator',
  'readOnly',
  'example',
]);

function sanitize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sanitize);
  if (!isRecord(node)) return node;
  const own = node[SWAGGER_TYPE];
  if (isRecord(own)) return own;
  const variants = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (variants !== undefined) {
    // A nullable type is the only union we write; other unions are shown as "any value".
    const nonNull = variants.filter((v) => !(isRecord(v) && v.type === 'null'));
    const base = nonNull.length === 1 ? (sanitize(nonNull[0]) as JsonSchema) : {};
    const extra = typeof node.description === 'string' ? { description: node.description } : {};
    return nonNull.length < variants.length
      ? { ...base, ...extra, 'x-nullable': true }
      : { ...base, ...extra };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && Array.isArray(value)) {
      // draft 4's ['string', 'null']: Swagger 2.0 has one type and the x-nullable extension.
      const types = value.filter((t) => t !== 'null');
      if (types.length === 1) out.type = types[0];
      if (types.length < value.length) out['x-nullable'] = true;
    } else if (
      (key === 'minimum' || key === 'maximum') &&
      Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER
    ) {
      // zod bounds every integer by the safe range; as documentation that is noise.
    } else if (key === 'const') out.enum = [value];
    else if (key === 'properties' && isRecord(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitize(v)]));
    else if (key === 'additionalProperties') out[key] = typeof value === 'boolean' ? value : sanitize(value);
    else if (key === 'required' && Array.isArray(value)) {
      if (value.length > 0) out.required = value;
    } else if (SCHEMA_KEYS.has(key) || key.startsWith('x-')) out[key] = sanitize(value);
  }
  return out;
}

/** The Swagger 2.0 schema of a zod schema, as clients send it (`input`) or receive it (`output`). */
export function swaggerSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-4',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const meta = z.globalRegistry.get(ctx.zodSchema);
      if (meta !== undefined && isRecord(meta[SWAGGER_TYPE]))
        ctx.jsonSchema[SWAGGER_TYPE] = meta[SWAGGER_TYPE];
    },
  });
  return sanitize(json) as JsonSchema;
}
