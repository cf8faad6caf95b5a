// deployManifest: apply manifests to an account's cluster (the agent's `deploy`). A `namespaceOverride`
// moves every namespaced manifest; a `moniker` is written as the moniker annotations the read model
// takes applications and clusters from. Artifact binding is not supported: manifests come as text.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { isClusterScopedKind } from '../../../lib/cluster-scoped-kinds.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { defineConverter, PayloadError } from './converter.ts';
import { namesByNamespace, spinnakerKind } from './manifest-name.ts';

const manifestSchema = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z
    .looseObject({
      name: z.string().min(1).optional(),
      generateName: z.string().min(1).optional(),
      namespace: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .refine((m) => m.name !== undefined || m.generateName !== undefined, 'needs name or generateName'),
});

const monikerSchema = z.looseObject({
  app: z.string().min(1),
  cluster: z.string().min(1).optional(),
  stack: z.string().optional(),
  detail: z.string().optional(),
  sequence: z.int().min(0).optional(),
});

type Manifest = z.infer<typeof manifestSchema>;

function withMoniker(manifest: Manifest, moniker: z.infer<typeof monikerSchema> | undefined): Manifest {
  if (moniker === undefined) return manifest;
  const name = manifest.metadata.name ?? manifest.metadata.generateName ?? '';
  const annotations: Record<string, string> = {
    'moniker.spinnaker.io/application': moniker.app,
    'moniker.spinnaker.io/cluster':
      moniker.cluster ?? `${spinnakerKind(manifest.apiVersion, manifest.kind)} ${name}`,
    ...(moniker.stack ? { 'moniker.spinnaker.io/stack': moniker.stack } : {}),
    ...(moniker.detail ? { 'moniker.spinnaker.io/detail': moniker.detail } : {}),
    ...(moniker.sequence === undefined ? {} : { 'moniker.spinnaker.io/sequence': String(moniker.sequence) }),
    // What the manifest says itself wins over the moniker.
    ...manifest.metadata.annotations,
  };
  return { ...manifest, metadata: { ...manifest.metadata, annotations } };
}

/** `kind: List` manifests stand for their items. */
function expandLists(manifests: readonly Manifest[]): Manifest[] {
  return manifests.flatMap((m) =>
    m.kind === 'List' && Array.isArray(m.items) ? m.items.map((item) => manifestSchema.parse(item)) : [m],
  );
}

export const deployManifest = defineConverter({
  name: 'deployManifest',
  phase: 'DEPLOY_ORCHESTRATOR_MANIFEST',
  payload: z.looseObject({
    account: z.string().min(1),
    manifests: z.array(manifestSchema).optional(),
    /** Deprecated single manifest, used when `manifests` is empty. */
    manifest: manifestSchema.optional(),
    namespaceOverride: z.string().optional(),
    moniker: monikerSchema.optional(),
    source: z.enum(['text', 'artifact']).default('text'),
  }),
  describe: (p) => `Deploying manifests to account ${p.account}`,
  toAgent: async (payload) => {
    if (payload.source === 'artifact') {
      throw new PayloadError('source', "only 'text' is supported: send the manifests themselves");
    }
    const given = payload.manifests?.length ? payload.manifests : payload.manifest ? [payload.manifest] : [];
    if (given.length === 0) throw new PayloadError('manifests', 'no manifest to deploy');
    let manifests: Manifest[];
    try {
      manifests = expandLists(given);
    } catch (error) {
      throw new PayloadError('manifests', `a List item is not a manifest: ${String(error)}`);
    }
    const override = payload.namespaceOverride?.trim();
    manifests = manifests.map((m) => {
      const placed =
        override && !isClusterScopedKind(m.kind)
          ? { ...m, metadata: { ...m.metadata, namespace: override } }
          : m;
      return withMoniker(placed, payload.moniker);
    });
    return [
      {
        account: payload.account,
        type: 'deploy',
        payload: { manifests } satisfies OperationPayload<'deploy'>,
      },
    ];
  },
  resultObject: (_payload, step) => {
    const manifests =
      isRecord(step.payload) && Array.isArray(step.payload.manifests) ? step.payload.manifests : [];
    return {
      manifestNamesByNamespace: namesByNamespace(manifests),
      manifests,
      createdArtifacts: manifests.filter(isRecord).map((m) => ({
        type: `orchestrator/${spinnakerKind(String(m.apiVersion), String(m.kind))}`,
        name: String(isRecord(m.metadata) ? m.metadata.name : ''),
        reference: String(isRecord(m.metadata) ? m.metadata.name : ''),
        location: String(isRecord(m.metadata) ? (m.metadata.namespace ?? '') : ''),
        version: '',
        customKind: false,
      })),
      boundArtifacts: [],
    };
  },
});
