// `agentRetirement.*`: retiring agents that stopped coming back, as `DELETE /agents/{id}` does by hand.
import { z } from 'zod';

export const agentRetirementSchema = z
  .strictObject({
    notSeenForSeconds: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'retire an agent that has had no session for this long (its static accounts leave every list and cache, their names become free); 0 never does',
      ),
  })
  .describe('agents gone for good: off by default, since an agent may be away for a long maintenance');
