// A span of time as the original product's deployment files write it: `{duration: 30, unit: seconds}`.
// Pauses, approval expirations, the pods-ready timeout and webhook timeouts all use this one shape.
import { z } from 'zod';

export const DURATION_UNITS = ['seconds', 'minutes', 'hours'] as const;

const UNIT_MS: Record<(typeof DURATION_UNITS)[number], number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
};

export const durationSchema = z.strictObject({
  duration: z.int().positive(),
  unit: z.enum(DURATION_UNITS),
});

export type Duration = z.infer<typeof durationSchema>;

export function durationMs(span: Duration): number {
  return span.duration * UNIT_MS[span.unit];
}
