// Zod schemas as Swagger 2.0 schema and parameter objects. Swagger 2.0 takes a subset of JSON Schema
// draft 4: no anyOf/oneOf, no `const`, no `null` type, no `$ref` outside `#/definitions`; and a query,
// path or header parameter is not a schema at all but one primitive `type` (or an array of them)
// with a few validation keywords. Routes are written with zod (the single source of their types and
// validation); this turns them into what Swagger 2.0 validators, clients and fuzzers accept.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';

export type JsonSchema = Record<string, unknown>;

/**
 * Metadata key a schema can carry to say how Swagger shows it, where the zod type is not what goes
 * over the wire: a query flag parsed from 'true'/'false' is a boolean to clients. The value replaces
 * the converted schema (a description given with `.describe()` is kept).
 */
export const SWAGGER_TYPE = 'swagger';

/** The types of a Swagger 2.0 schema object (and `null`, handled on its own). */
const SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'file', 'null']);

/** Keys of a Swagger 2.0 schema object; anything else that draft 4 allows is dropped. */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'default',
  'multipleOf',
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

/** Keys of a Swagger 2.0 query, path or header parameter (besides name, in and required). */
const PARAMETER_KEYS = new Set([
  'type',
  'format',
  'description',
  'default',
  'multipleOf',
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
  'enum',
]);

const PARAMETER_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array']);

const DEFINITIONS_PREFIX = '#/definitions/';

/**
 * Replaces zod's references (`.meta({ id })` and recursive schemas put a `$ref` to the root's
 * `definitions`) by what they name, so that every schema stands on its own in the document. A
 * reference met again inside itself is recursion, which a schema without references cannot say:
 * it becomes "any value".
 */
function inline(node: unknown, definitions: JsonSchema, seen: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, definitions, seen));
  if (!isRecord(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith(DEFINITIONS_PREFIX)) {
    const name = ref.slice(DEFINITIONS_PREFIX.length);
    const target = definitions[name];
    // Not one of zod's: a reference into the document's definitions, given with SWAGGER_TYPE.
    if (!isRecord(target)) return node;
    if (seen.has(name)) return {};
    const { $ref: _, ...siblings } = node;
    return { ...(inline(target, definitions, new Set([...seen, name])) as JsonSchema), ...siblings };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    // A schema's `properties` are named by its keys: a property called `$ref` is not a reference.
    // SWAGGER_TYPE is Swagger already, written by the route's author.
    out[key] =
      key === SWAGGER_TYPE
        ? value
        : key === 'properties' && isRecord(value)
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, definitions, seen)]))
          : inline(value, definitions, seen);
  }
  return out;
}

function sanitize(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => sanitize(item, io));
  if (!isRecord(node)) return node;
  const own = node[SWAGGER_TYPE];
  if (isRecord(own))
    return typeof node.description === 'string' ? { description: node.description, ...own } : own;
  const variants = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (variants !== undefined) {
    // A nullable type is the only union we write; other unions are shown as "any value".
    const nonNull = variants.filter((v) => !(isRecord(v) && v.type === 'null'));
    const base = nonNull.length === 1 ? (sanitize(nonNull[0], io) as JsonSchema) : {};
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
    } else if (key === 'type' && typeof value === 'string' && !SCHEMA_TYPES.has(value)) {
      // Not a JSON type: metadata of the same name (a setting's documented type, `map or list`),
      // which zod copies into the schema. The schema says what the value may be without it.
    } else if (key === 'type' && value === 'null') {
      // z.null(): only null. Swagger 2.0 has no null type; the extension and the enum say it.
      out['x-nullable'] = true;
      out.enum = [null];
    } else if (
      io === 'output' &&
      (key === 'minimum' || key === 'maximum') &&
      Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER
    ) {
      // zod bounds every integer by the safe range: in what cloudctl answers that is noise, but in what
      // it takes it is a limit it enforces (a query's 2^60 is refused), so clients must see it.
    } else if (key === 'const') out.enum = [value];
    else if (key === 'properties' && isRecord(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitize(v, io)]));
    else if (key === 'additionalProperties')
      out[key] = typeof value === 'boolean' ? value : sanitize(value, io);
    else if (key === 'required' && Array.isArray(value)) {
      if (value.length > 0) out.required = value;
    } else if (SCHEMA_KEYS.has(key) || key.startsWith('x-')) out[key] = sanitize(value, io);
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
  const { definitions, ...root } = json as JsonSchema;
  return sanitize(inline(root, isRecord(definitions) ? definitions : {}, new Set()), io) as JsonSchema;
}

/**
 * One property of a query, path or header schema as a Swagger 2.0 parameter: a primitive type (a
 * value without one, or an object, is a string on the wire, which is what the route then parses),
 * and arrays in the query as repeated parameters (`?a=1&a=2`), the way fastify hands them over.
 */
export function swaggerParameter(schema: JsonSchema, location: 'query' | 'path' | 'header'): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (PARAMETER_KEYS.has(key) || (key.startsWith('x-') && key !== 'x-nullable')) out[key] = value;
  }
  if (typeof out.type !== 'string' || !PARAMETER_TYPES.has(out.type)) out.type = 'string';
  if (out.type === 'array') {
    const items = isRecord(schema.items) ? swaggerParameter(schema.items, location) : { type: 'string' };
    // Items of items do not nest in a query: what repeats is a primitive.
    if (items.type === 'array') items.type = 'string';
    delete items.description;
    out.items = items;
    if (location === 'query') out.collectionFormat = 'multi';
  }
  // Swagger 2.0 requires the enum's values to be of the parameter's type.
  if (Array.isArray(out.enum) && out.type === 'string')
    out.enum = out.enum.filter((v) => typeof v === 'string');
  if (Array.isArray(out.enum) && out.enum.length === 0) delete out.enum;
  return out;
}
