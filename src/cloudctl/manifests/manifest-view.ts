// The manifest record of GET /manifests/...: clouddriver's KubernetesManifestContainer (account, name,
// location, the object itself, its status, moniker, artifacts, events, warnings, metrics) and the
// coordinates its dynamic lookups answer. Built from one object as the cluster has it; pure.
import { z } from 'zod';
import { driftSchema } from '../../contract/index.ts';
import {
  type ContainerMetric,
  containerMetricSchema,
  indexObject,
  monikerSchema,
} from '../read-model/index.ts';
import { type Artifact, artifactSchema, manifestArtifacts } from './manifest-artifacts.ts';
import { type ManifestStatus, manifestStatus, manifestStatusSchema } from './manifest-status.ts';

const objectSchema = z.record(z.string(), z.unknown());

export const manifestSchema = z
  .object({
    account: z.string(),
    name: z.string().describe('"<kind> <name>", e.g. "deployment web"'),
    location: z.string().describe('the namespace; empty for a cluster-scoped object'),
    manifest: objectSchema.describe('the object as the cluster has it (Secret values blanked)'),
    status: manifestStatusSchema,
    moniker: monikerSchema,
    artifacts: z.array(artifactSchema),
    events: z.array(objectSchema).describe('the Events about the object, oldest first; empty unless asked'),
    warnings: z
      .array(z.object({ type: z.string(), message: z.string() }).describe('Warning'))
      .describe(
        "what the record leaves out and why, e.g. a stored copy answered while the account's agent is away",
      ),
    drift: driftSchema
      .nullable()
      .describe(
        'for an object cloudctl deployed: the field managers that changed its content since, with the paths they own and when (each also a `drift` warning); null when none',
      ),
    metrics: z
      .array(containerMetricSchema)
      .describe(
        "a pod's latest metrics per container, from its account's agent (`metrics: true`); empty for other kinds and with includeEvents=false, as clouddriver's",
      ),
  })
  .describe('OrchestratorManifest');
export type ManifestRecord = z.infer<typeof manifestSchema>;

export const coordinatesSchema = z
  .object({
    kind: z.string().describe('Spinnaker\'s spelling, e.g. "replicaSet"'),
    namespace: z.string(),
    name: z.string(),
  })
  .describe('OrchestratorCoordinates');
export type Coordinates = z.infer<typeof coordinatesSchema>;

/** Where the object is and what it is: Kubernetes' group, version and kind, Spinnaker's kind. */
export interface ObjectType {
  group: string;
  version: string;
  kind: string;
  spinnakerKind: string;
}

/**
 * The moniker as the read model derives it (annotations, the deployment service's mark, the
 * recommended name label); without an application, clouddriver's fallback: the name up to its
 * first '-'.
 */
function monikerOf(type: ObjectType, name: string, object: Record<string, unknown>) {
  const index = indexObject({ ...type, name }, JSON.stringify(object));
  return {
    app: index.application ?? name.split('-')[0] ?? name,
    cluster: index.cluster ?? `${type.spinnakerKind} ${name}`,
    ...(index.stack === null ? {} : { stack: index.stack }),
    ...(index.detail === null ? {} : { detail: index.detail }),
    ...(index.sequence === null ? {} : { sequence: index.sequence }),
  };
}

export type ManifestWarning = ManifestRecord['warnings'][number];

/**
 * The warning of a manifest answered from cloudctl's store because no agent serves the account: the
 * object is as the watch last brought it (`storedAt`), and what only the cluster can say is left out.
 */
export function storedCopyWarning(storedAt: Date): ManifestWarning {
  return {
    type: 'storedCopy',
    message: `the account's agent is not connected: this is cloudctl's stored copy from ${storedAt.toISOString()}; events are not shown`,
  };
}

export interface ManifestParts {
  account: string;
  type: ObjectType;
  namespace: string;
  name: string;
  object: Record<string, unknown>;
  events: Record<string, unknown>[];
  /** A pod's containers' metrics; none for other kinds. */
  metrics?: ContainerMetric[];
}

export function manifestRecord(parts: ManifestParts): ManifestRecord {
  const { type, object } = parts;
  const status: ManifestStatus = manifestStatus(type.group, type.kind, object);
  const artifacts: Artifact[] = manifestArtifacts(type.kind, object);
  return {
    account: parts.account,
    name: `${type.spinnakerKind} ${parts.name}`,
    location: parts.namespace,
    manifest: object,
    status,
    moniker: monikerOf(type, parts.name, object),
    artifacts,
    events: parts.events,
    warnings: [],
    drift: null,
    metrics: parts.metrics ?? [],
  };
}
