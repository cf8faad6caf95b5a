// deleteManifest: delete one object named "<kind> <name>" (the agent's `delete`). Spinnaker's
// `options.cascading` chooses background (true) or orphan (false) propagation; `orphanDependents`
// wins over it. Deleting by kinds and label selectors is not supported: name the object.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { defineConverter, PayloadError } from './converter.ts';
import { resolveTarget, splitManifestName, targetFields } from './manifest-name.ts';

const flag = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');

function propagation(options: {
  cascading?: boolean | string | undefined;
  orphanDependents?: boolean | undefined;
}) {
  if (options.orphanDependents !== undefined) return options.orphanDependents ? 'Orphan' : 'Background';
  if (options.cascading === undefined || options.cascading === true) return 'Background';
  if (options.cascading === false) return 'Orphan';
  return options.cascading === 'foreground' ? 'Foreground' : 'Background';
}

export const deleteManifest = defineConverter({
  name: 'deleteManifest',
  phase: 'DELETE_ORCHESTRATOR_MANIFEST',
  payload: z.looseObject({
    ...targetFields,
    manifestName: targetFields.manifestName.optional(),
    options: z
      .looseObject({
        cascading: z.union([flag, z.enum(['foreground', 'background', 'orphan'])]).optional(),
        orphanDependents: flag.optional(),
        gracePeriodSeconds: z.coerce.number().int().min(0).nullable().optional(),
      })
      .default({}),
  }),
  describe: (p) => `Deleting ${p.manifestName ?? 'manifests'} in account ${p.account}`,
  toAgent: async (payload, context) => {
    if (payload.manifestName === undefined) {
      throw new PayloadError(
        'manifestName',
        'required: deleting by kinds and label selectors is not supported',
      );
    }
    const target = await resolveTarget({ ...payload, manifestName: payload.manifestName }, context);
    return [
      {
        account: payload.account,
        type: 'delete',
        payload: {
          ...target,
          propagationPolicy: propagation(payload.options),
          ...(payload.options.gracePeriodSeconds == null
            ? {}
            : { gracePeriodSeconds: payload.options.gracePeriodSeconds }),
        } satisfies OperationPayload<'delete'>,
      },
    ];
  },
  resultObject: (payload) => {
    const { kind, name } = splitManifestName(payload.manifestName ?? '');
    return {
      manifestNamesByNamespace: { [payload.location]: [`${kind} ${name}`] },
      manifests: [],
      createdArtifacts: [],
      boundArtifacts: [],
    };
  },
});
