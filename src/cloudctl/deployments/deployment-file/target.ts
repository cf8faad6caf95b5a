// A target (an environment): where to deploy (account, namespace), how (a strategy's name), and its
// constraints: the targets it waits for and the steps run before and after its deployment.
import { z } from 'zod';
import { oneOfKeys } from './one-of-keys.ts';
import { pauseStepSchema } from './pause-step.ts';
import { runWebhookStepSchema } from './run-webhook-step.ts';

export const constraintStepSchema = oneOfKeys(
  { pause: pauseStepSchema, runWebhook: runWebhookStepSchema },
  'a constraint step',
);

export type ConstraintStep = z.output<typeof constraintStepSchema>;

export const constraintsSchema = z.strictObject({
  dependsOn: z.array(z.string().min(1)).default([]),
  beforeDeployment: z.array(constraintStepSchema).default([]),
  afterDeployment: z.array(constraintStepSchema).default([]),
});

/** A Kubernetes namespace name (RFC 1123 label). */
const namespaceName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    'expected a namespace name (lower case letters, digits and -)',
  );

export const targetSchema = z.strictObject({
  account: z.string().min(1),
  /** Overrides the namespace of every namespaced manifest, as in the original product. */
  namespace: namespaceName.optional(),
  strategy: z.string().min(1),
  constraints: constraintsSchema.prefault({}),
});

export type Target = z.output<typeof targetSchema>;
