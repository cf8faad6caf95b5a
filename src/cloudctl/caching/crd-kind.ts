// The kind a CustomResourceDefinition defines, read from the CRD object as the cache holds it. A CRD
// is cached as soon as it is deployed, while objects of its kind reach the cache only once the agent
// has noticed the new kind and listed it (or never, for a kind the account's `kinds` leave out);
// reading the CRD lets a custom kind be named (Spinnaker's kind map, GET /manifests) meanwhile.
import { isRecord } from '../../lib/is-record.ts';

export interface CrdKind {
  group: string;
  /** Kubernetes' spelling, `CronTab`. */
  kind: string;
  /** The version objects are read through: the storage version, else the first served one. */
  version: string | undefined;
}

interface ServedVersion {
  name: string;
  served: boolean;
  storage: boolean;
}

function versionsOf(spec: Record<string, unknown>): ServedVersion[] {
  const listed = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  return listed.flatMap((v) =>
    typeof v.name === 'string'
      ? [{ name: v.name, served: v.served !== false, storage: v.storage === true }]
      : [],
  );
}

/** The CRD's kind; undefined for a body that names no group or kind. */
export function crdKind(body: unknown): CrdKind | undefined {
  const spec = isRecord(body) && isRecord(body.spec) ? body.spec : undefined;
  const names = spec !== undefined && isRecord(spec.names) ? spec.names : undefined;
  if (spec === undefined || names === undefined) return undefined;
  if (typeof spec.group !== 'string' || typeof names.kind !== 'string') return undefined;
  const served = versionsOf(spec).filter((v) => v.served);
  // apiextensions.k8s.io/v1beta1 CRDs may name one version in `spec.version`.
  const legacy = typeof spec.version === 'string' ? spec.version : undefined;
  const version = (served.find((v) => v.storage) ?? served[0])?.name ?? legacy;
  return { group: spec.group, kind: names.kind, version };
}
