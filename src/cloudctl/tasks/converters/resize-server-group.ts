// resizeServerGroup: Deck's and Orca's resize of a server group (clouddriver's
// KubernetesResizeServerGroupOperation), which scales it to `capacity.desired` (the agent's `scale`,
// as scaleManifest); `min` and `max` mean nothing to a ReplicaSet and are taken and ignored, as there.
// The server group is `serverGroupName` ("replicaSet web-v001"); clouddriver reads its namespace from
// `region`, and Orca's stages also write it as `location` or `namespace`; the account is `account`
// or the older `credentials`. As the API we mirror, the task reports no result object.
import { z } from 'zod';
import { manifestNameSchema } from '../../caching/index.ts';
import { defineConverter } from './converter.ts';
import { replicaCount, scaleStep } from './scale-manifest.ts';

const payloadSchema = z
  .looseObject({
    account: z.string().min(1).optional().describe('the account whose cluster holds the server group'),
    credentials: z.string().min(1).optional().describe('the account, as older clients name it'),
    serverGroupName: manifestNameSchema,
    region: z.string().optional().describe('the namespace, as clouddriver reads it'),
    location: z.string().optional().describe('the namespace, as Orca also writes it'),
    namespace: z.string().optional().describe('the namespace'),
    capacity: z.looseObject({
      desired: replicaCount.describe('the replicas to scale to'),
      min: z.number().optional(),
      max: z.number().optional(),
    }),
    cloudProvider: z.string().optional().describe('ignored; always orchestrator'),
  })
  .refine((p) => p.account !== undefined || p.credentials !== undefined, {
    message: 'required: the account of the server group',
    path: ['account'],
  });
type ResizePayload = z.output<typeof payloadSchema>;

const accountOf = (p: ResizePayload) => p.account ?? p.credentials;
const namespaceOf = (p: ResizePayload) => p.region || p.location || p.namespace || '';

export const resizeServerGroup = defineConverter({
  name: 'resizeServerGroup',
  phase: 'RESIZE_ORCHESTRATOR_SERVER_GROUP',
  payload: payloadSchema,
  describe: (p) => `Resizing ${p.serverGroupName} in account ${accountOf(p)} to ${p.capacity.desired}`,
  toAgent: async (payload) => {
    const target = {
      account: accountOf(payload) ?? '',
      manifestName: payload.serverGroupName,
      namespace: namespaceOf(payload),
      replicas: payload.capacity.desired,
    };
    return [scaleStep(target, { name: 'serverGroupName', namespace: 'region' })];
  },
  resultObject: () => undefined,
});
