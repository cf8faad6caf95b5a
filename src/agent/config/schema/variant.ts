// The three generations of the agent's settings tables (spec: "variants A, B, C").
// B is the newest and the default when a file does not say.
import { z } from 'zod';

export const VARIANTS = ['A', 'B', 'C'] as const;
export const variantSchema = z.enum(VARIANTS);
export type Variant = z.infer<typeof variantSchema>;
export const DEFAULT_VARIANT: Variant = 'B';

/** Per-variant value of a setting whose default differs between the tables. */
export type PerVariant<T> = Record<Variant, T>;
