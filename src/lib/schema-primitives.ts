// Small reusable value schemas whose messages say what a user must write.
import { z } from 'zod';

export const nonNegativeInt = () => z.int().min(0);
export const positiveInt = () => z.int().min(1);
export const port = () => z.int().min(1).max(65535);
export const nonEmptyString = () => z.string().min(1, { error: 'must not be empty' });
export const stringList = () => z.array(nonEmptyString());

/** An enumeration matched without regard to case, normalised to the canonical spelling. */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  aliases: Record<string, T[number]> = {},
) {
  const canonical = new Map<string, T[number]>(values.map((v) => [v.toLowerCase(), v]));
  for (const [alias, target] of Object.entries(aliases)) canonical.set(alias.toLowerCase(), target);
  const accepted = [...canonical.keys()].join(', ');
  return z.string().transform((value, ctx): T[number] => {
    const match = canonical.get(value.toLowerCase());
    if (match === undefined) {
      ctx.issues.push({ code: 'custom', input: value, message: `expected one of ${accepted} (any case)` });
      return z.NEVER;
    }
    return match;
  });
}
