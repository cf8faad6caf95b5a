// Query parameters arrive as strings. These parse them strictly and are documented as what clients
// send (a Swagger `integer` or `boolean`), where z.coerce does neither well: z.coerce.number() takes
// '', ' 7', '1e3' and '0x10', and z.coerce.boolean() turns 'false' into true.
import { z } from 'zod';
import { SWAGGER_TYPE } from './swagger-schema.ts';

const INTEGER = /^-?\d+$/;

/**
 * A query integer: digits only, then the given schema's checks and default, as in
 * `queryInteger(z.int().min(1).max(1000).default(100))`.
 */
export function queryInteger<T extends z.ZodType<number, number | undefined>>(schema: T) {
  return z.preprocess(
    (value) => (typeof value === 'string' && INTEGER.test(value) ? Number(value) : value),
    schema,
  );
}

/** A query flag: 'true' or 'false', nothing else; `fallback` when the query leaves it out. */
export function queryBoolean(fallback: boolean) {
  return z
    .enum(['true', 'false'], { error: "expected 'true' or 'false'" })
    .optional()
    .transform((value) => (value === undefined ? fallback : value === 'true'))
    .meta({ [SWAGGER_TYPE]: { type: 'boolean', default: fallback } });
}
