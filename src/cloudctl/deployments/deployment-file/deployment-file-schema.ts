// The deployment file, top to bottom: the original product's shape (`version: v1`, `kind:
// kubernetes`, `application`, `targets` map, `manifests` list, `strategies` map, `webhooks` list,
// `deploymentConfig.timeout`, `analysis`, `trafficManagement`). Names across sections (a target's
// strategy, a step's webhook, dependsOn) are checked by cross-references.ts, on the raw file, so
// those errors come in the same run as these.
import { z } from 'zod';
import { uniqueEntries } from '../../../lib/unique-entries.ts';
import { analysisSectionSchema } from './analysis-section.ts';
import { durationMs, durationSchema } from './duration.ts';
import { manifestEntrySchema } from './manifest-entry.ts';
import { strategySchema } from './strategy.ts';
import { targetSchema } from './target.ts';
import { trafficManagementEntrySchema } from './traffic-management.ts';
import { webhookSchema } from './webhook.ts';

const nonEmptyMap = <T extends z.ZodType>(value: T, what: string) =>
  z
    .record(z.string().min(1), value)
    .refine((map) => Object.keys(map).length > 0, `expected at least one ${what}`);

export const deploymentFileSchema = z.strictObject({
  version: z.literal('v1').optional(),
  kind: z.literal('kubernetes').optional(),
  application: z.string().min(1).max(253),
  deploymentConfig: z
    .strictObject({
      // How long the pods of a target may take to become ready; the original's default and minimum.
      timeout: durationSchema
        .refine((t) => durationMs(t) >= 60_000, 'the shortest timeout is 60 seconds')
        .default({ duration: 30, unit: 'minutes' }),
    })
    .prefault({}),
  targets: nonEmptyMap(targetSchema, 'target'),
  manifests: z.array(manifestEntrySchema).min(1),
  strategies: nonEmptyMap(strategySchema, 'strategy'),
  /** The analysis steps' provider and named queries; absent: the built-in provider and measures. */
  analysis: analysisSectionSchema.prefault({}),
  /** Service meshes that carry a canary's weights, and blue/green's Services (traffic-management.ts). */
  trafficManagement: z.array(trafficManagementEntrySchema).default([]),
  webhooks: z
    .array(webhookSchema)
    .default([])
    .superRefine(
      uniqueEntries('name', 'webhooks', (name, first) => `webhook '${name}' is already defined by ${first}`),
    ),
});

export type DeploymentFile = z.output<typeof deploymentFileSchema>;
