// A Spinnaker artifact as clients send it (kork's Artifact: type, name, version, location,
// reference, metadata, artifactAccount, ...), and the few rules every artifact comparison uses.
// Orca serialises unset fields as null, so every field but the type may be null or missing.
// Types of objects in a cluster are spelt `orchestrator/<kind>`; `kubernetes/<kind>`, the spelling
// of the API we mirror, is taken as the same type, so artifacts from its pipelines still bind.
import { z } from 'zod';

const text = z.string().nullish();

export const artifactSchema = z
  .looseObject({
    type: text.describe('docker/image, orchestrator/configMap, embedded/base64, ...'),
    customKind: z.boolean().nullish(),
    name: text.describe('what the artifact is matched by: the image name, the unversioned object name'),
    version: text,
    location: text.describe('the namespace of an orchestrator/* artifact'),
    reference: text.describe(
      'what replaces a match: the image with its tag, the versioned name; base64 content',
    ),
    metadata: z
      .record(z.string(), z.unknown())
      .nullish()
      .describe('`account`: the account of an orchestrator/* artifact'),
    artifactAccount: text,
    provenance: text,
    uuid: text,
  })
  .describe('Artifact');
export type Artifact = z.infer<typeof artifactSchema>;

/** Artifact types of objects in a cluster; the other spelling is read as this one. */
export const ORCHESTRATOR_PREFIX = 'orchestrator/';
const MIRRORED_PREFIX = 'kubernetes/';

export const DOCKER_IMAGE = 'docker/image';
export const CONFIG_MAP = `${ORCHESTRATOR_PREFIX}configMap`;
export const SECRET = `${ORCHESTRATOR_PREFIX}secret`;
export const DEPLOYMENT = `${ORCHESTRATOR_PREFIX}deployment`;
export const REPLICA_SET = `${ORCHESTRATOR_PREFIX}replicaSet`;

/** The type with `kubernetes/` read as `orchestrator/`; empty when unset. */
export function canonicalType(artifact: Artifact): string {
  const type = artifact.type ?? '';
  return type.startsWith(MIRRORED_PREFIX)
    ? `${ORCHESTRATOR_PREFIX}${type.slice(MIRRORED_PREFIX.length)}`
    : type;
}

export function isOrchestratorType(artifact: Artifact): boolean {
  return canonicalType(artifact).startsWith(ORCHESTRATOR_PREFIX);
}

/**
 * The identity under which artifacts replace each other in one deploy: type, name and location.
 * The first required or optional artifact of a key wins; an artifact the deploy creates replaces it.
 */
export function bindingKey(artifact: Artifact): string {
  return JSON.stringify([canonicalType(artifact), artifact.name ?? '', artifact.location ?? '']);
}

/**
 * Whether two artifacts are the same for the required-artifacts check: type, name, version,
 * location and reference, but not the artifact account (a required artifact names its account,
 * the bound copy need not).
 */
export function sameArtifact(a: Artifact, b: Artifact): boolean {
  const fields = (x: Artifact) =>
    JSON.stringify([canonicalType(x), x.name ?? '', x.version ?? '', x.location ?? '', x.reference ?? '']);
  return fields(a) === fields(b);
}

/** `docker/image nginx (reference nginx:1.25)`, for messages. */
export function describeArtifact(artifact: Artifact): string {
  const where = artifact.location ? ` in ${artifact.location}` : '';
  return `${artifact.type ?? '(no type)'} ${artifact.name ?? '(no name)'}${where} (reference ${artifact.reference ?? 'none'})`;
}
