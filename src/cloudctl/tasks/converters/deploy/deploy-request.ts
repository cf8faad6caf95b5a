// What a deployManifest request may carry (clouddriver's KubernetesDeployManifestDescription, as
// Orca's deploy stage sends it; the artifact fields are the artifacts folder's), and the fields
// cloudctl does not carry out yet: a request that uses
// one is refused with a 400 naming it, so nothing asked for is silently dropped.
import { z } from 'zod';
import { deployArtifactFields } from '../artifacts/index.ts';
import { PayloadError } from '../converter.ts';
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
  /** Whether new server groups receive traffic from `services`; a no-op without services. */
  enableTraffic: z.boolean().default(true),
  services: z.array(z.string()).default([]),
  trafficManagement: z.looseObject({ enabled: z.boolean().default(false) }).optional(),
  ...deployArtifactFields,
});
export type DeployRequest = z.infer<typeof deployRequestSchema>;

const TRAFFIC_ANNOTATION = 'traffic.spinnaker.io/load-balancers';

/** Refuses what is asked for and not carried out; the path names the field. */
export function refuseUnsupported(request: DeployRequest, manifests: readonly Manifest[]): void {
  const refusals: Array<[path: string, used: boolean, what: string]> = [
    ['services', request.services.length > 0, 'traffic management on deploy is not supported yet'],
    [
      'trafficManagement.enabled',
      request.trafficManagement?.enabled === true,
      'traffic management on deploy is not supported yet',
    ],
  ];
  for (const [path, used, what] of refusals) if (used) throw new PayloadError(path, what);
  for (const [index, manifest] of manifests.entries()) {
    if (manifest.metadata.annotations?.[TRAFFIC_ANNOTATION] !== undefined) {
      throw new PayloadError(
        `manifests[${index}].metadata.annotations.${TRAFFIC_ANNOTATION}`,
        'traffic management on deploy is not supported yet',
      );
    }
  }
}
