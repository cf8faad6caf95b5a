// `canary`: steps run in order. `setWeight` scales the new version to that percentage of the
// replicas (by replica ratio, no traffic manager); after the last step the new version gets 100%.
import { z } from 'zod';
import { analysisStepSchema } from './analysis-step.ts';
import { exposeServicesStepSchema } from './expose-services-step.ts';
import { oneOfKeys } from './one-of-keys.ts';
import { pauseStepSchema } from './pause-step.ts';
import { runWebhookStepSchema } from './run-webhook-step.ts';

export const setWeightStepSchema = z.strictObject({ weight: z.int().min(0).max(100) });

export const canaryStepSchema = oneOfKeys(
  {
    setWeight: setWeightStepSchema,
    pause: pauseStepSchema,
    runWebhook: runWebhookStepSchema,
    analysis: analysisStepSchema,
    exposeServices: exposeServicesStepSchema,
  },
  'a canary step',
);

export type CanaryStep = z.output<typeof canaryStepSchema>;

export const canaryStrategySchema = z
  .strictObject({ steps: z.array(canaryStepSchema).min(1) })
  .superRefine((canary, ctx) => {
    // Weights only grow: a smaller weight after a larger one would scale the new version down
    // in the middle of a rollout, which no one means.
    let previous: { weight: number; index: number } | undefined;
    canary.steps.forEach((step, index) => {
      if (!('setWeight' in step)) return;
      const { weight } = step.setWeight;
      if (previous !== undefined && weight <= previous.weight)
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index, 'setWeight', 'weight'],
          message: `weights must increase from step to step: ${weight} follows ${previous.weight} (steps[${previous.index}])`,
        });
      previous = { weight, index };
    });
  });

export type CanaryStrategy = z.output<typeof canaryStrategySchema>;
