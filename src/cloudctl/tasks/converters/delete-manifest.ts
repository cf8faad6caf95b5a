// deleteManifest: delete one object named "<kind> <name>" (the agent's `delete`), or every object of
// some `kinds` that `labelSelectors` match in the location (the agent's `deleteSelected`).
// Spinnaker's `options.cascading` chooses background (true) or orphan (false) propagation, or names
// one (`foreground`, `background`, `orphan`); `orphanDependents` wins over it. A dynamic target
// (`mode: dynamic`, `cluster`, `criteria`) arrives resolved to `manifestName`, as Orca sends it. The
// result names only what was deleted: an object already gone is not reported as deleted.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { spinnakerKind } from '../../caching/index.ts';
import { type ConverterContext, defineConverter, PayloadError } from './converter.ts';
import { labelSelectorsSchema, selectorQuery } from './deploy/label-selectors.ts';
import { resolveTarget, splitManifestName, targetFields } from './manifest-name.ts';

const flag = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');
type Propagation = 'Foreground' | 'Background' | 'Orphan';
const CASCADES: Record<string, Propagation> = {
  true: 'Background',
  false: 'Orphan',
  foreground: 'Foreground',
  background: 'Background',
  orphan: 'Orphan',
};

function propagation(options: {
  cascading?: boolean | string | undefined;
  orphanDependents?: boolean | undefined;
}) {
  if (options.orphanDependents !== undefined) return options.orphanDependents ? 'Orphan' : 'Background';
  if (options.cascading === undefined) return 'Background';
  const chosen = CASCADES[String(options.cascading).toLowerCase()];
  if (chosen === undefined) {
    throw new PayloadError(
      'options.cascading',
      `invalid cascade value (${String(options.cascading)}): expected true, false, foreground, background or orphan`,
    );
  }
  return chosen;
}

const payloadSchema = z.looseObject({
  ...targetFields,
  manifestName: targetFields.manifestName.optional(),
  /** With labelSelectors, instead of manifestName: the Spinnaker kinds to delete from. */
  kinds: z.array(z.string().min(1)).default([]),
  labelSelectors: labelSelectorsSchema.optional(),
  options: z
    .looseObject({
      cascading: z.union([z.boolean(), z.string()]).optional(),
      orphanDependents: flag.optional(),
      gracePeriodSeconds: z.coerce.number().int().min(0).nullable().optional(),
    })
    .default({}),
});
type DeletePayload = z.output<typeof payloadSchema>;

async function selectedStep(payload: DeletePayload, context: ConverterContext) {
  const query = payload.labelSelectors === undefined ? '' : selectorQuery(payload.labelSelectors);
  if (payload.kinds.length === 0 || query === '') {
    throw new PayloadError('manifestName', 'required, unless kinds and labelSelectors name what to delete');
  }
  const kinds = [];
  for (const [i, kind] of payload.kinds.entries()) {
    const resolved = await context.kinds.resolve(payload.account, kind);
    if (resolved === undefined)
      throw new PayloadError(`kinds[${i}]`, `unknown kind '${kind}' in account ${payload.account}`);
    kinds.push(resolved);
  }
  return {
    kinds,
    ...(payload.location === '' ? {} : { namespace: payload.location }),
    labelSelector: query,
    propagationPolicy: propagation(payload.options),
    ...(payload.options.gracePeriodSeconds == null
      ? {}
      : { gracePeriodSeconds: payload.options.gracePeriodSeconds }),
  } satisfies OperationPayload<'deleteSelected'>;
}

/** "<kind> <name>" by namespace, for what the agent says it deleted. */
function deletedNames(payload: DeletePayload, agentResult: unknown): Record<string, string[]> {
  if (!isRecord(agentResult)) return {};
  if (Array.isArray(agentResult.deleted)) {
    const out: Record<string, string[]> = {};
    for (const d of agentResult.deleted.filter(isRecord)) {
      const namespace = typeof d.namespace === 'string' ? d.namespace : '';
      out[namespace] = [
        ...(out[namespace] ?? []),
        `${spinnakerKind(String(d.apiVersion), String(d.kind))} ${String(d.name)}`,
      ];
    }
    return out;
  }
  if (agentResult.deleted !== true || payload.manifestName === undefined) return {};
  const { kind, name } = splitManifestName(payload.manifestName);
  return { [payload.location]: [`${kind} ${name}`] };
}

export const deleteManifest = defineConverter({
  name: 'deleteManifest',
  phase: 'DELETE_ORCHESTRATOR_MANIFEST',
  payload: payloadSchema,
  describe: (p) => `Deleting ${p.manifestName ?? `${p.kinds.join(', ')} by label`} in account ${p.account}`,
  toAgent: async (payload, context) => {
    if (payload.manifestName === undefined) {
      return [
        {
          account: payload.account,
          type: 'deleteSelected',
          payload: await selectedStep(payload, context),
        },
      ];
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
  resultObject: (payload, _step, agentResult) => ({
    manifestNamesByNamespace: deletedNames(payload, agentResult),
    manifests: [],
    createdArtifacts: [],
    boundArtifacts: [],
  }),
});
