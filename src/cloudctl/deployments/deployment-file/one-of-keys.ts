// Steps and strategies are maps with exactly one key that names their type (`- pause: {...}`,
// `canary: {...}`), as in the original product's files. Declared as a strict object of optional keys,
// so unknown keys and errors inside the chosen key keep their own paths, then narrowed to a union
// type with exactly one key set.
import { z } from 'zod';

type Shape = Record<string, z.ZodType>;

/** `{a: A} | {b: B} | …`: one member per key of the shape. */
export type OneOf<S extends Shape> = { [K in keyof S]: { [P in K]: z.output<S[K]> } }[keyof S];

export function oneOfKeys<S extends Shape>(shape: S, what: string) {
  const keys = Object.keys(shape);
  const optional = Object.fromEntries(keys.map((k) => [k, (shape[k] as z.ZodType).optional()]));
  const expected = keys.map((k) => `'${k}'`).join(', ');
  return (
    z
      .strictObject(optional)
      .superRefine((value, ctx) => {
        const present = keys.filter((k) => value[k] !== undefined);
        if (present.length === 1) return;
        ctx.addIssue({
          code: 'custom',
          // Lets the loader drop "found none" where the only key was unknown: that key's own error
          // (with its did-you-mean) says it better.
          params: { oneOfKeys: present.length },
          message:
            present.length === 0
              ? `${what} needs one of ${expected}, found none`
              : `${what} has exactly one of ${expected}, found ${present.map((k) => `'${k}'`).join(' and ')}`,
        });
      })
      // The refinement above proved that exactly one key is set, which TypeScript cannot follow through
      // Object.keys: this is the one place that says so.
      .transform((value) => value as OneOf<S>)
  );
}
