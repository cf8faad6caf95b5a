// What a deployManifest request may carry: clouddriver's KubernetesDeployManifestDescription, as
// Orca's deploy stage sends it. The artifact and traffic fields are their folders'.
import { z } from 'zod';
import { deployArtifactFields } from '../artifacts/index.ts';
import { trafficFields } from '../traffic/index.ts';
import { labelSelectorsSchema } from './label-selectors.ts';

export const manifestSchema = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z
    .looseObject({
      name: z.string().min(1).optional(),
      generateName: z.string().min(1).optional(),
      namespace: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
      labels: z.record(z.string(), z.string()).optional(),
    })
    .refine((m) => m.name !== undefined || m.generateName !== undefined, 'needs name or generateName'),
});
export type Manifest = z.infer<typeof manifestSchema>;

const monikerSchema = z.looseObject({
  app: z.string().min(1).optional(),
  cluster: z.string().min(1).optional(),
  stack: z.string().optional(),
  detail: z.string().optional(),
  sequence: z.int().min(0).optional(),
});

export const deployRequestSchema = z.looseObject({
  account: z.string().min(1),
  manifests: z.array(manifestSchema).optional(),
  /** Deprecated single manifest, used when `manifests` is empty. */
  manifest: manifestSchema.optional(),
  namespaceOverride: z.string().optional(),
  moniker: monikerSchema.optional(),
  source: z.enum(['text', 'artifact']).default('text'),
  labelSelectors: labelSelectorsSchema.optional(),
  /** With label selectors: succeed when no manifest matched (else the task fails). */
  allowNothingSelected: z.boolean().default(false),
  /** Keep Spinnaker's labels off the pod template (for kinds whose template refuses them). */
  skipSpecTemplateLabels: z.boolean().default(false),
  ...trafficFields,
  ...deployArtifactFields,
});
export type DeployRequest = z.infer<typeof deployRequestSchema>;
