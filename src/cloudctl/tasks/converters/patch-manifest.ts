// patchManifest: a strategic merge, JSON merge or JSON patch of one object (the agent's `patch`). As
// clouddriver does, the artifacts a pipeline hands the stage (`requiredArtifacts`, `allArtifacts`)
// are bound into a merge patch's body as into a manifest of the target's kind: a container image
// without a tag takes the artifact's.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import {
  artifactResult,
  bindDeployArtifacts,
  deployArtifactFields,
  storedArtifactResult,
} from './artifacts/index.ts';
import { defineConverter } from './converter.ts';
import { resolveTarget, splitManifestName, targetFields } from './manifest-name.ts';

type PatchBody = Record<string, unknown> | Record<string, unknown>[];

/** The body with the artifacts bound, for a merge patch; a JSON patch (a list) is sent as given. */
function boundPatch(
  body: PatchBody,
  target: { apiVersion: string; kind: string; name: string; namespace?: string },
  payload: Parameters<typeof bindDeployArtifacts>[1] & { account: string },
) {
  if (Array.isArray(body)) return { patch: body, details: undefined };
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  const asManifest = {
    ...body,
    apiVersion: target.apiVersion,
    kind: target.kind,
    metadata: {
      ...metadata,
      name: target.name,
      ...(target.namespace ? { namespace: target.namespace } : {}),
    },
  };
  const bound = bindDeployArtifacts([asManifest], payload, { account: payload.account });
  const [first] = bound.manifests;
  // The patch keeps what it said and no more: the kind and name were only there to bind by.
  const { apiVersion: _v, kind: _k, metadata: _m, ...rest } = first ?? asManifest;
  const patch = 'metadata' in body ? { ...rest, metadata: body.metadata } : rest;
  return { patch, details: artifactResult({ ...bound, createdArtifacts: [] }) };
}

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
      ...deployArtifactFields,
    })
    .refine((p) => p.options.mergeStrategy !== 'json' || Array.isArray(p.patchBody), {
      message: 'a json patch is a list of operations',
      path: ['patchBody'],
    }),
  describe: (p) => `Patching ${p.manifestName} in account ${p.account} (${p.options.mergeStrategy})`,
  toAgent: async (payload, context) => {
    const target = await resolveTarget(payload, context);
    const { patch, details } = boundPatch(payload.patchBody, target, payload);
    return [
      {
        account: payload.account,
        type: 'patch',
        payload: {
          ...target,
          patchType: payload.options.mergeStrategy,
          patch,
        } satisfies OperationPayload<'patch'>,
        ...(details === undefined ? {} : { details }),
      },
    ];
  },
  resultObject: (payload, step, agentResult) => {
    const { kind, name } = splitManifestName(payload.manifestName);
    const object =
      typeof agentResult === 'object' && agentResult !== null && 'object' in agentResult
        ? agentResult.object
        : undefined;
    return {
      manifestNamesByNamespace: { [payload.location]: [`${kind} ${name}`] },
      manifests: object == null ? [] : [object],
      createdArtifacts: [],
      boundArtifacts: storedArtifactResult(step.details).boundArtifacts,
    };
  },
});
