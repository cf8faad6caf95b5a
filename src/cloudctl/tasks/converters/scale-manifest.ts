// scaleManifest: set the replicas of a deployment, replica set or stateful set (the agent's `scale`).
// Unlike the API we mirror, `replicas` is required: a missing field there scales to zero. The step is
// shared with resizeServerGroup, which scales a server group the same way.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { type AgentStep, defineConverter, PayloadError } from './converter.ts';
import { splitManifestName, targetFields } from './manifest-name.ts';

const SCALABLE: Record<string, OperationPayload<'scale'>['kind']> = {
  deployment: 'Deployment',
  replicaset: 'ReplicaSet',
  statefulset: 'StatefulSet',
};

/**
 * A replica count, as a number or the digits Jackson also reads as one. Not z.coerce: that reads
 * null as 0, and a count sent as null is missing, not zero.
 */
export const replicaCount = z
  .union([z.number(), z.string().regex(/^\d+$/)], { error: 'expected a whole number' })
  .transform(Number)
  .pipe(z.int().min(0));

export interface ScaleTarget {
  account: string;
  /** "<kind> <name>". */
  manifestName: string;
  namespace: string;
  replicas: number;
}

/** The agent's `scale` of a target; the fields named in refusals are the operation's own. */
export function scaleStep(target: ScaleTarget, fields: { name: string; namespace: string }): AgentStep {
  const { kind, name } = splitManifestName(target.manifestName);
  const agentKind = SCALABLE[kind.toLowerCase()];
  if (agentKind === undefined) {
    throw new PayloadError(
      fields.name,
      `a ${kind} cannot be scaled: use a deployment, replicaSet or statefulSet`,
    );
  }
  if (target.namespace === '')
    throw new PayloadError(fields.namespace, 'required: the namespace of the object');
  return {
    account: target.account,
    type: 'scale',
    payload: {
      kind: agentKind,
      namespace: target.namespace,
      name,
      replicas: target.replicas,
    } satisfies OperationPayload<'scale'>,
  };
}

export const scaleManifest = defineConverter({
  name: 'scaleManifest',
  phase: 'SCALE_ORCHESTRATOR_MANIFEST',
  payload: z.looseObject({ ...targetFields, replicas: replicaCount }),
  describe: (p) => `Scaling ${p.manifestName} in account ${p.account} to ${p.replicas}`,
  toAgent: async (payload) => [
    scaleStep(
      {
        account: payload.account,
        manifestName: payload.manifestName,
        namespace: payload.location,
        replicas: payload.replicas,
      },
      { name: 'manifestName', namespace: 'location' },
    ),
  ],
  resultObject: () => undefined,
});
