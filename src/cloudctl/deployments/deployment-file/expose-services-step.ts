// `exposeServices`: give each named Service of the target's namespace a temporary URL that reaches it
// from outside the cluster (cloudctl's /previews/{token}/, carried by the agent through the API
// server's service proxy). The original product's fields: `services`, and `ttl` as a duration in
// seconds, minutes or hours. Without `ttl` a URL lives 30 minutes (long enough for a person to look
// and a webhook to test, short enough that a forgotten link closes by itself); 24 hours at most, so
// no capability URL outlives a working day unnoticed.
import { z } from 'zod';
import { serviceNameSchema } from '../../../contract/index.ts';
import { type Duration, durationMs, durationSchema } from './duration.ts';

export const DEFAULT_PREVIEW_TTL: Duration = { duration: 30, unit: 'minutes' };
export const MAX_PREVIEW_TTL: Duration = { duration: 24, unit: 'hours' };

export const exposeServicesStepSchema = z.strictObject({
  services: z
    .array(serviceNameSchema)
    .min(1)
    .max(20)
    .superRefine((services, ctx) => {
      services.forEach((name, index) => {
        const first = services.indexOf(name);
        if (first !== index)
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: `Service '${name}' is listed twice (also services[${first}])`,
          });
      });
    }),
  ttl: durationSchema
    .refine((ttl) => durationMs(ttl) <= durationMs(MAX_PREVIEW_TTL), {
      message: `a preview lives ${MAX_PREVIEW_TTL.duration} ${MAX_PREVIEW_TTL.unit} at most`,
    })
    .default(DEFAULT_PREVIEW_TTL),
});

export type ExposeServicesStep = z.output<typeof exposeServicesStepSchema>;
