// The few rules every comparison of artifacts in a deploy uses (the schema is the artifacts
// feature's). Types of objects in a cluster are spelt `orchestrator/<kind>`; `kubernetes/<kind>`, the spelling
// of the API we mirror, is taken as the same type, so artifacts from its pipelines still bind.
import type { Artifact } from '../../../artifacts/index.ts';

export { type Artifact, artifactSchema } from '../../../artifacts/index.ts';

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
