// cleanupArtifacts: after a deploy, Orca asks to drop the versions a manifest's
// `strategy.spinnaker.io/max-version-history` no longer keeps (clouddriver's
// KubernetesCleanupArtifactsOperation). For each manifest that says so, the versions of its base name
// in its namespace are listed through the agent, and all but the newest N are deleted (the agent's
// `deleteObjects`). A request with nothing to drop runs a read that changes nothing.
import { z } from 'zod';
import type { ObjectRef, OperationPayload } from '../../../contract/index.ts';
import { spinnakerKind } from '../../caching/index.ts';
import { type ConverterContext, defineConverter } from './converter.ts';
import { manifestSchema } from './deploy/deploy-request.ts';
import { maxVersionHistory, priorVersions } from './deploy/resource-versioner.ts';
import { ARTIFACT } from './deploy/spinnaker-metadata.ts';

const payloadSchema = z.looseObject({
  account: z.string().min(1),
  manifests: z.array(manifestSchema).default([]),
  cloudProvider: z.string().optional(),
});
type CleanupPayload = z.output<typeof payloadSchema>;

async function versionsToDrop(payload: CleanupPayload, context: ConverterContext): Promise<ObjectRef[]> {
  const drop: ObjectRef[] = [];
  for (const manifest of payload.manifests) {
    const annotations = manifest.metadata.annotations ?? {};
    const keep = maxVersionHistory(annotations);
    const base = annotations[ARTIFACT.name];
    const namespace = annotations[ARTIFACT.location] ?? manifest.metadata.namespace ?? '';
    if (keep === undefined || base === undefined || annotations[ARTIFACT.version] === undefined) continue;
    const objects = await context.cluster.list(payload.account, {
      apiVersion: manifest.apiVersion,
      kind: manifest.kind,
      namespace,
    });
    const versions = priorVersions(base, objects);
    for (const old of versions.slice(0, Math.max(0, versions.length - keep))) {
      drop.push({
        apiVersion: manifest.apiVersion,
        kind: manifest.kind,
        name: old.name,
        ...(namespace === '' ? {} : { namespace }),
      });
    }
  }
  return drop;
}

export const cleanupArtifacts = defineConverter({
  name: 'cleanupArtifacts',
  phase: 'CLEANUP_ARTIFACTS',
  payload: payloadSchema,
  describe: (p) => `Cleaning up old versions in account ${p.account}`,
  toAgent: async (payload, context) => {
    const objects = await versionsToDrop(payload, context);
    if (objects.length === 0) return [{ account: payload.account, type: 'describeAccount', payload: {} }];
    return [
      {
        account: payload.account,
        type: 'deleteObjects',
        payload: { objects } satisfies OperationPayload<'deleteObjects'>,
      },
    ];
  },
  resultObject: (_payload, _step, agentResult) => {
    // deleteObjects names what it deleted; the describeAccount of nothing to clean up names nothing.
    const deleted = 'deleted' in agentResult && Array.isArray(agentResult.deleted) ? agentResult.deleted : [];
    const byNamespace: Record<string, string[]> = {};
    for (const d of deleted) {
      const namespace = d.namespace ?? '';
      const name = `${spinnakerKind(d.apiVersion, d.kind)} ${d.name}`;
      byNamespace[namespace] = [...(byNamespace[namespace] ?? []), name];
    }
    return { manifestNamesByNamespace: byNamespace, manifests: [], createdArtifacts: [], boundArtifacts: [] };
  },
});
