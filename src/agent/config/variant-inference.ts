// The variant of a file that does not say `variant:`. Configs copied from the product we replace have
// no such key, and their keys show which settings table they were written for: the variant whose
// table has every key the file uses, B where several have (the newest, and the default), C before A.
// When none has them all, the one with the fewest foreign keys, so the errors name the fewest keys.
// A choice other than the default is noted at INFO (in `config validate` and the agent's log); B, the
// default, is not noted on every start: `config validate` names the variant in its verdict anyway.
import type { SchemaIndex } from '../../lib/schema-walk.ts';
import { checkKeys } from './key-check.ts';
import { DEFAULT_VARIANT, VARIANTS, type Variant } from './schema/variant.ts';

const PREFERENCE: ReadonlyArray<Variant> = [
  DEFAULT_VARIANT,
  ...VARIANTS.filter((v) => v !== DEFAULT_VARIANT).reverse(),
];

export interface InferredVariant {
  variant: Variant;
  /** Every variant whose table has all the file's keys; empty when none has. */
  fitting: Variant[];
  /** One sentence for the INFO note, when the keys chose a variant other than the default. */
  note: string | undefined;
}

export function inferVariant(raw: unknown, indexes: Record<Variant, SchemaIndex>): InferredVariant {
  const foreign = new Map(
    PREFERENCE.map((v) => [v, checkKeys(raw, v, indexes).filter((f) => f.severity === 'error').length]),
  );
  const fitting = PREFERENCE.filter((v) => foreign.get(v) === 0);
  const variant =
    fitting[0] ??
    PREFERENCE.reduce((best, v) => ((foreign.get(v) ?? 0) < (foreign.get(best) ?? 0) ? v : best));
  const why =
    fitting.length === 1
      ? 'the only variant whose settings include every key it uses'
      : fitting.length > 1
        ? `its keys fit ${fitting.join(' and ')}; ${variant} is taken where several fit`
        : `no variant has all its keys; ${variant} has the most of them`;
  return {
    variant,
    fitting,
    note:
      variant === DEFAULT_VARIANT
        ? undefined
        : `no 'variant:' in the file: read as variant ${variant} (${why}); write 'variant: ${variant}' at the top to make it explicit`,
  };
}
