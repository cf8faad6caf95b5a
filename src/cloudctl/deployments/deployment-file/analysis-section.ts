// The file's top-level `analysis` section, as the original product writes it: the provider steps use
// when they name none (`defaultMetricProviderName`) and the named `queries` with their limits. Two
// kinds of provider: `builtin` measures the new version's pods from what the agent reads (restarts,
// OOM kills, crash loops, ready ratio against the old version, Warning events), so a built-in
// query's `queryTemplate` names one of those measures; a provider of cloudctl's config
// (`analysis.providers`, type `prometheus`) runs the `queryTemplate` as PromQL. Which names exist is
// cloudctl's config's to say, so names and templates are checked beside the schema
// (analysis-providers.ts), not in it.
import { z } from 'zod';
import { uniqueEntries } from '../../../lib/unique-entries.ts';
import { BUILTIN_PROVIDER_NAME } from '../../config/index.ts';

/** cloudctl's config names it: no entry of `analysis.providers` may take it. */
export const BUILTIN_PROVIDER = BUILTIN_PROVIDER_NAME;

/** What the built-in provider measures, each with the limit it is held to when a query gives none. */
export const BUILTIN_MEASURES = {
  /** Container restarts summed over the new version's pods. */
  restarts: { upperLimit: 2 },
  /** Containers of the new version whose last end was OOMKilled. */
  oomKills: { upperLimit: 0 },
  /** Containers of the new version waiting in CrashLoopBackOff. */
  crashLoops: { upperLimit: 0 },
  /** The new version's share of ready pods divided by the old version's (1 without an old one). */
  readyRatio: { lowerLimit: 0.9 },
  /** Warning events about the new version's pods. */
  warningEvents: { upperLimit: 5 },
} as const satisfies Record<string, { upperLimit?: number; lowerLimit?: number }>;

export type BuiltinMeasure = keyof typeof BUILTIN_MEASURES;
export const BUILTIN_MEASURE_NAMES = Object.keys(BUILTIN_MEASURES) as BuiltinMeasure[];

export function isBuiltinMeasure(name: string): name is BuiltinMeasure {
  return Object.hasOwn(BUILTIN_MEASURES, name);
}

/** A provider's name: `builtin` or one of cloudctl's `analysis.providers` (checked on load). */
export const providerNameSchema = z.string().min(1);

export const analysisQuerySchema = z
  .strictObject({
    name: z.string().min(1),
    metricProviderName: providerNameSchema.optional(),
    /** For `builtin`: the measure's name; for a Prometheus provider: PromQL with `{{vendor.*}}`. */
    queryTemplate: z.string().min(1),
    upperLimit: z.number().optional(),
    lowerLimit: z.number().optional(),
  })
  .superRefine((query, ctx) => {
    if (
      query.upperLimit !== undefined &&
      query.lowerLimit !== undefined &&
      query.lowerLimit > query.upperLimit
    )
      ctx.addIssue({
        code: 'custom',
        path: ['lowerLimit'],
        message: `lowerLimit ${query.lowerLimit} is above upperLimit ${query.upperLimit}: no value passes`,
      });
  });

export type AnalysisQuery = z.output<typeof analysisQuerySchema>;

export const analysisSectionSchema = z.strictObject({
  defaultMetricProviderName: providerNameSchema.default(BUILTIN_PROVIDER),
  queries: z
    .array(analysisQuerySchema)
    .default([])
    .superRefine(
      uniqueEntries(
        'name',
        'analysis queries',
        (name, first) => `query '${name}' is already defined by ${first}`,
      ),
    ),
});

export type AnalysisSection = z.output<typeof analysisSectionSchema>;
