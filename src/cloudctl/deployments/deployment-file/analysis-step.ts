// `analysis`: judge the new version `numberOfJudgmentRuns` times, one judgment every `interval`
// `units`, by the named `queries` (of the file's `analysis` section, or built-in measures by their
// own names). The original product's fields. A failure leaves the target for a person to roll back
// (`rollBackMode: manual`, the spec's rule for analysis) unless the step says `automatic`.
import { z } from 'zod';
import { providerNameSchema } from './analysis-section.ts';
import { DURATION_UNITS } from './duration.ts';
import { CONTEXT_NAME } from './run-webhook-step.ts';

export const analysisStepSchema = z.strictObject({
  metricProviderName: providerNameSchema.optional(),
  /** Values the original's query templates could use; the built-in measures take none. */
  context: z
    .record(z.string().regex(CONTEXT_NAME), z.union([z.string(), z.number(), z.boolean()]))
    .optional(),
  interval: z.int().positive(),
  units: z.enum(DURATION_UNITS),
  numberOfJudgmentRuns: z.int().min(1).max(100).default(1),
  rollBackMode: z.enum(['manual', 'automatic']).default('manual'),
  rollForwardMode: z
    .enum(['automatic', 'manual'])
    .default('automatic')
    .refine((mode) => mode === 'automatic', {
      message:
        "rollForwardMode: manual is not supported: put a '- pause: {untilApproved: true}' step after the analysis",
    }),
  queries: z.array(z.string().min(1)).min(1),
  lookbackMethod: z.enum(['uninterrupted', 'growing']).optional(),
});

export type AnalysisStep = z.output<typeof analysisStepSchema>;
