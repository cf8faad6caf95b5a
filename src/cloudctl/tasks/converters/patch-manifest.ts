// patchManifest: a strategic merge, JSON merge or JSON patch of one object (the agent's `patch`).
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { defineConverter } from './converter.ts';
import { resolveTarget, splitManifestName, targetFields } from './manifest-name.ts';

export const patchManifest = defineConverter({
  name: 'patchManifest',
  phase: 'PATCH_ORCHESTRATOR_MANIFEST',
  payload: z
    .looseObject({
      ...targetFields,
      patchBody: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]),
      options: z.looseObject({
        mergeStrategy: z.enum(['strategic', 'merge', 'json']),
        record: z.boolean().optional(),
      }),
    })
    .refine((p) => p.options.mergeStrategy !== 'json' || Array.isArray(p.patchBody), {
      message: 'a json patch is a list of operations',
      path: ['patchBody'],
    }),
  describe: (p) => `Patching ${p.manifestName} in account ${p.account} (${p.options.mergeStrategy})`,
  toAgent: async (payload, context) => [
    {
      account: payload.account,
      type: 'patch',
      payload: {
        ...(await resolveTarget(payload, context)),
        patchType: payload.options.mergeStrategy,
        patch: payload.patchBody,
      } satisfies OperationPayload<'patch'>,
    },
  ],
  resultObject: (payload, _step, agentResult) => {
    const { kind, name } = splitManifestName(payload.manifestName);
    const object =
      typeof agentResult === 'object' && agentResult !== null && 'object' in agentResult
        ? agentResult.object
        : undefined;
    return {
      manifestNamesByNamespace: { [payload.location]: [`${kind} ${name}`] },
      manifests: object === undefined ? [] : [object],
      createdArtifacts: [],
      boundArtifacts: [],
    };
  },
});
