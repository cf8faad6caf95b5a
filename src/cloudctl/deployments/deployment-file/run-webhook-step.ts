// `runWebhook`: call the webhook of that name and wait for its verdict. `context` declares the
// `{{context.*}}` values its templates may use; numbers and booleans are written as text.
import { z } from 'zod';

export const CONTEXT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export const runWebhookStepSchema = z.strictObject({
  name: z.string().min(1),
  context: z
    .record(
      z.string().regex(CONTEXT_NAME, 'a context name is a letter or _ followed by letters, digits, _ or -'),
      z.union([z.string(), z.number(), z.boolean()]).transform(String),
    )
    .default({}),
});

export type RunWebhookStep = z.output<typeof runWebhookStepSchema>;
