// `pause`: wait for a span of time, or until someone approves (optionally only people with one of
// `requiresRoles`, and only for `approvalExpiration`). The original product's fields.
import { z } from 'zod';
import { DURATION_UNITS, type Duration, durationSchema } from './duration.ts';

export type PauseStep =
  | Duration
  | { untilApproved: true; requiresRoles: string[]; approvalExpiration: Duration | undefined };

export const pauseStepSchema = z
  .strictObject({
    duration: z.int().positive().optional(),
    unit: z.enum(DURATION_UNITS).optional(),
    untilApproved: z.boolean().optional(),
    requiresRoles: z.array(z.string().min(1)).optional(),
    approvalExpiration: durationSchema.optional(),
  })
  .superRefine((pause, ctx) => {
    const timed = pause.duration !== undefined || pause.unit !== undefined;
    if (pause.untilApproved === true) {
      if (timed)
        ctx.addIssue({
          code: 'custom',
          message: 'a pause waits until approved or for a duration, not both: remove duration and unit',
        });
      return;
    }
    if (pause.requiresRoles !== undefined || pause.approvalExpiration !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'requiresRoles and approvalExpiration apply only to a pause with untilApproved: true',
      });
    if (pause.duration === undefined || pause.unit === undefined)
      ctx.addIssue({
        code: 'custom',
        message: `a pause needs duration and unit (${DURATION_UNITS.join(', ')}), or untilApproved: true`,
      });
  })
  .transform(
    (pause): PauseStep =>
      pause.untilApproved === true
        ? {
            untilApproved: true,
            requiresRoles: pause.requiresRoles ?? [],
            approvalExpiration: pause.approvalExpiration,
          }
        : // The refinement above made both present.
          { duration: pause.duration!, unit: pause.unit! },
  );
