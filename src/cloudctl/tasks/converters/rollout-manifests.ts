// The rollout operations on a deployment, stateful set or daemon set (the agent's `rollout`):
// undoRolloutManifest, pauseRolloutManifest, resumeRolloutManifest, rollingRestartManifest.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { defineConverter, type OperationConverter, PayloadError } from './converter.ts';
import { splitManifestName, targetFields } from './manifest-name.ts';

const ROLLABLE: Record<string, OperationPayload<'rollout'>['kind']> = {
  deployment: 'Deployment',
  statefulset: 'StatefulSet',
  daemonset: 'DaemonSet',
};

function rolloutTarget(manifestName: string, location: string) {
  const { kind, name } = splitManifestName(manifestName);
  const agentKind = ROLLABLE[kind.toLowerCase()];
  if (agentKind === undefined) {
    throw new PayloadError(
      'manifestName',
      `a ${kind} has no rollout: use a deployment, statefulSet or daemonSet`,
    );
  }
  if (location === '') throw new PayloadError('location', 'required: the namespace of the object');
  return { kind: agentKind, namespace: location, name };
}

function simpleRollout(name: string, phase: string, action: 'pause' | 'resume' | 'restart', verb: string) {
  return defineConverter({
    name,
    phase,
    payload: z.looseObject(targetFields),
    describe: (p) => `${verb} ${p.manifestName} in account ${p.account}`,
    toAgent: async (payload) => [
      {
        account: payload.account,
        type: 'rollout',
        payload: {
          action,
          ...rolloutTarget(payload.manifestName, payload.location),
        } satisfies OperationPayload<'rollout'>,
      },
    ],
    resultObject: () => undefined,
  });
}

export const undoRolloutManifest = defineConverter({
  name: 'undoRolloutManifest',
  phase: 'UNDO_ROLLOUT_ORCHESTRATOR_MANIFEST',
  payload: z
    .looseObject({
      ...targetFields,
      revision: z.coerce.number().int().min(1).optional(),
      numRevisionsBack: z.coerce.number().int().min(1).optional(),
    })
    .refine((p) => p.revision !== undefined || p.numRevisionsBack !== undefined, {
      message: 'give revision or numRevisionsBack',
      path: ['revision'],
    }),
  describe: (p) => `Rolling back ${p.manifestName} in account ${p.account}`,
  toAgent: async (payload) => {
    if (payload.revision === undefined && payload.numRevisionsBack !== 1) {
      throw new PayloadError(
        'numRevisionsBack',
        'only 1 (the previous revision) is supported; give revision instead',
      );
    }
    return [
      {
        account: payload.account,
        type: 'rollout',
        payload: {
          action: 'undo',
          ...rolloutTarget(payload.manifestName, payload.location),
          ...(payload.revision === undefined ? {} : { toRevision: payload.revision }),
        } satisfies OperationPayload<'rollout'>,
      },
    ];
  },
  resultObject: () => undefined,
});

export const pauseRolloutManifest: OperationConverter = simpleRollout(
  'pauseRolloutManifest',
  'PAUSE_ROLLOUT_ORCHESTRATOR_MANIFEST',
  'pause',
  'Pausing the rollout of',
);
export const resumeRolloutManifest: OperationConverter = simpleRollout(
  'resumeRolloutManifest',
  'RESUME_ROLLOUT_ORCHESTRATOR_MANIFEST',
  'resume',
  'Resuming the rollout of',
);
export const rollingRestartManifest: OperationConverter = simpleRollout(
  'rollingRestartManifest',
  'ROLLING_RESTART_ORCHESTRATOR_MANIFEST',
  'restart',
  'Restarting',
);
