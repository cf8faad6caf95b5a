// Dynamic targets of Spinnaker's manifest stages: which version of a cluster's manifests a pipeline
// means by "newest", "second_newest", "oldest", "largest" or "smallest" (clouddriver's
// ManifestController criteria). Pure: the candidates come from the read model.
import { z } from 'zod';

export const CRITERIA = ['oldest', 'newest', 'second_newest', 'largest', 'smallest'] as const;
export const criteriaSchema = z.enum(CRITERIA, {
  error: (issue) => `unknown criteria '${String(issue.input)}'; expected one of ${CRITERIA.join(', ')}`,
});
export type Criteria = (typeof CRITERIA)[number];

/** One version of a cluster's manifests, as the read model indexes it. */
export interface Candidate {
  name: string;
  /** moniker.spinnaker.io/sequence (or a Deployment's revision); null when absent. */
  sequence: number | null;
  /** metadata.creationTimestamp in ms; null when absent. */
  createdTime: number | null;
  /** spec.replicas; null for a kind without replicas. */
  replicas: number | null;
}

const compare = (a: number, b: number) => a - b;

/**
 * Oldest first. Sequences decide where both versions have one: creation times have a resolution
 * of one second, and two versions deployed by one pipeline are often created within it. Otherwise
 * the creation time (unknown first), then the name.
 */
export function byAge(a: Candidate, b: Candidate): number {
  if (a.sequence !== null && b.sequence !== null && a.sequence !== b.sequence)
    return compare(a.sequence, b.sequence);
  const time = compare(a.createdTime ?? -1, b.createdTime ?? -1);
  if (time !== 0) return time;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Smallest first by replicas (a kind without replicas counts -1, as in clouddriver); equal sizes oldest first. */
export function bySize(a: Candidate, b: Candidate): number {
  return compare(a.replicas ?? -1, b.replicas ?? -1) || byAge(a, b);
}

/** The version the criteria names; undefined when the cluster has too few versions for it. */
export function pickTarget<C extends Candidate>(candidates: readonly C[], criteria: Criteria): C | undefined {
  const sorted = [...candidates].sort(criteria === 'largest' || criteria === 'smallest' ? bySize : byAge);
  switch (criteria) {
    case 'oldest':
    case 'smallest':
      return sorted[0];
    case 'newest':
    case 'largest':
      return sorted[sorted.length - 1];
    case 'second_newest':
      return sorted[sorted.length - 2];
  }
}
