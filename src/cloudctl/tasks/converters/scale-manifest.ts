// scaleManifest: set the replicas of a deployment, replica set or stateful set (the agent's `scale`).
// Unlike the API we mirror, `replicas` is required: a missing field there scales to zero.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { defineConverter, PayloadError } from './converter.ts';
import { splitManifestName, targetFields } from './manifest-name.ts';

const SCALABLE: Record<string, OperationPayload<'scale'>['kind']> = {
  deployment: 'Deployment',
  replicaset: 'ReplicaSet',
  statefulset: 'StatefulSet',
};

export const scaleManifest = defineConverter({
  name: 'scaleManifest',
  phase: 'SCALE_ORCHESTRATOR_MANIFEST',
  payload: z.looseObject({ ...targetFields, replicas: z.coerce.number().int().min(0) }),
  describe: (p) => `Scaling ${p.manifestName} in account ${p.account} to ${p.replicas}`,
  toAgent: async (payload) => {
    const { kind, name } = splitManifestName(payload.manifestName);
    const agentKind = SCALABLE[kind.toLowerCase()];
    if (agentKind === undefined) {
      throw new PayloadError(
        'manifestName',
        `a ${kind} cannot be scaled: use a deployment, replicaSet or statefulSet`,
      );
    }
    if (payload.location === '') throw new PayloadError('location', 'required: the namespace of the object');
    return [
      {
        account: payload.account,
        type: 'scale',
        payload: {
          kind: agentKind,
          namespace: payload.location,
          name,
          replicas: payload.replicas,
        } satisfies OperationPayload<'scale'>,
      },
    ];
  },
  resultObject: () => undefined,
});
