// `logging.*`: cloudctl logs JSON lines to standard output.
import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export const loggingSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('minimum level logged'),
  })
  .describe('logs, as JSON lines on standard output');
