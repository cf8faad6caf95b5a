// `plans.*`: plans made with POST /plans (and by the deployment service), kept until applied or expired.
import { z } from 'zod';

export const plansSchema = z
  .strictObject({
    expireAfterSeconds: z
      .number()
      .int()
      .positive()
      .default(3600)
      .describe(
        'how long a plan may be applied after it was made; applying it later answers 410 and it reads as `expired`',
      ),
  })
  .describe('plans (POST /plans): what operations would change, applied at most once');
