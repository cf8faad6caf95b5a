// Versioned resources, as Spinnaker's Kubernetes provider deploys them (clouddriver's
// ResourceVersioner): a ReplicaSet, ConfigMap, Secret or Pod is deployed as `name-v000`, `-v001`, …
// so a change never rewrites what running pods use; the `strategy.spinnaker.io/versioned` annotation
// turns it on or off for any kind. A manifest equal, outside its metadata, to what a version already
// in the cluster deployed reuses that version instead of adding one. Equality is read from a hash of
// the non-metadata content each version deployed, written on it at deploy (clouddriver compares the
// last-applied annotation, which server-side apply does not write and which a Secret must not carry).
import { createHash } from 'node:crypto';
import { CONTENT_HASH_ANNOTATION } from '../../../../contract/index.ts';
import { isRecord } from '../../../../lib/is-record.ts';
import type { ManifestObject } from './spinnaker-metadata.ts';

export const VERSIONED_ANNOTATION = 'strategy.spinnaker.io/versioned';
export const MAX_VERSION_HISTORY_ANNOTATION = 'strategy.spinnaker.io/max-version-history';
/** The hash of what a version deployed, outside its metadata (the agent's drift check reads it too). */
export { CONTENT_HASH_ANNOTATION };

const VERSIONED_BY_DEFAULT = new Set(['ReplicaSet', 'ConfigMap', 'Secret', 'Pod']);

export function isVersioned(kind: string, annotations: Record<string, string>): boolean {
  const said = annotations[VERSIONED_ANNOTATION]?.trim().toLowerCase();
  if (said === 'true') return true;
  if (said === 'false') return false;
  return VERSIONED_BY_DEFAULT.has(kind);
}

/** JSON with object keys sorted, so equal content hashes equally whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function contentHash(manifest: ManifestObject): string {
  const { metadata: _metadata, status: _status, ...content } = manifest;
  return createHash('sha256').update(canonical(content)).digest('hex');
}

/** A version of a name found in the cluster. */
export interface PriorVersion {
  version: number;
  name: string;
  hash: string | undefined;
  object: Record<string, unknown>;
}

/** The versions of `base` among objects of one kind and namespace, oldest first. */
export function priorVersions(base: string, objects: readonly Record<string, unknown>[]): PriorVersion[] {
  const pattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-v(\\d{3,})$`);
  const found: PriorVersion[] = [];
  for (const object of objects) {
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    const match = typeof metadata.name === 'string' ? pattern.exec(metadata.name) : null;
    if (match?.[1] === undefined) continue;
    const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
    const hash = annotations[CONTENT_HASH_ANNOTATION];
    found.push({
      version: Number(match[1]),
      name: String(metadata.name),
      hash: typeof hash === 'string' ? hash : undefined,
      object,
    });
  }
  return found.sort((a, b) => a.version - b.version);
}

/** The version to deploy: one whose content is the same, else one past the newest. */
export function chooseVersion(
  hash: string,
  priors: readonly PriorVersion[],
): { version: number; reused: boolean } {
  const same = priors.find((p) => p.hash === hash);
  if (same !== undefined) return { version: same.version, reused: true };
  const newest = priors.at(-1);
  return { version: newest === undefined ? 0 : newest.version + 1, reused: false };
}

/** `max-version-history`: how many versions to keep, if the manifest says. */
export function maxVersionHistory(annotations: Record<string, string>): number | undefined {
  const value = annotations[MAX_VERSION_HISTORY_ANNOTATION];
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
