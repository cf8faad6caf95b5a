// `operations.*`: operations sent down to agents.
import { z } from 'zod';

export const operationsSchema = z
  .strictObject({
    waitTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(60_000)
      .describe('how long the internal API waits for an operation result'),
  })
  .describe('operations sent to agents');
