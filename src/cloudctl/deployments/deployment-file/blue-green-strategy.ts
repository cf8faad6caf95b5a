// `blueGreen`: the new version starts beside the old one behind `previewService`; the
// `redirectTrafficAfter` steps run in parallel and must all pass before `activeService` selects the
// new version; the `shutDownOldVersionAfter` pauses (also in parallel) then gate removing the old one.
// The Services may instead come from the file's trafficManagement `kubernetes` entry for the target
// (the original's newer place for them), so `activeService` is optional here and required of the
// two together (traffic-references.ts).
import { z } from 'zod';
import { analysisStepSchema } from './analysis-step.ts';
import { exposeServicesStepSchema } from './expose-services-step.ts';
import { oneOfKeys } from './one-of-keys.ts';
import { pauseStepSchema } from './pause-step.ts';
import { runWebhookStepSchema } from './run-webhook-step.ts';

export const redirectTrafficStepSchema = oneOfKeys(
  {
    pause: pauseStepSchema,
    runWebhook: runWebhookStepSchema,
    analysis: analysisStepSchema,
    exposeServices: exposeServicesStepSchema,
  },
  'a redirectTrafficAfter step',
);

export const shutDownStepSchema = z.strictObject({ pause: pauseStepSchema });

/** A Kubernetes Service name (RFC 1035 label). */
export const serviceName = z
  .string()
  .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'expected a Service name (lower case letters, digits and -)');

export const blueGreenStrategySchema = z
  .strictObject({
    activeService: serviceName.optional(),
    previewService: serviceName.optional(),
    redirectTrafficAfter: z.array(redirectTrafficStepSchema).default([]),
    shutDownOldVersionAfter: z.array(shutDownStepSchema).default([]),
  })
  .superRefine((blueGreen, ctx) => {
    if (blueGreen.previewService !== undefined && blueGreen.previewService === blueGreen.activeService)
      ctx.addIssue({
        code: 'custom',
        path: ['previewService'],
        message: `previewService must differ from activeService ('${blueGreen.activeService}')`,
      });
  });

export type BlueGreenStrategy = z.output<typeof blueGreenStrategySchema>;
export type RedirectTrafficStep = z.output<typeof redirectTrafficStepSchema>;
