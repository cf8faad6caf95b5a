// Dynamic targets, as pipelines name a server group of a cluster without knowing its name: the
// newest, the one before it, the oldest, the largest, or the only one. Clouddriver's names and their
// legacy spellings are kept.
import type { ServerGroup } from './records.ts';

export const TARGETS = [
  'current_asg_dynamic',
  'current_asg',
  'newest',
  'ancestor_asg_dynamic',
  'ancestor_asg',
  'ancestor',
  'previous',
  'oldest_asg_dynamic',
  'oldest',
  'largest_asg_dynamic',
  'largest',
  'fail',
] as const;
export type Target = (typeof TARGETS)[number];

type Kind = 'newest' | 'previous' | 'oldest' | 'largest' | 'only';
const KIND_OF: Record<Target, Kind> = {
  current_asg_dynamic: 'newest',
  current_asg: 'newest',
  newest: 'newest',
  ancestor_asg_dynamic: 'previous',
  ancestor_asg: 'previous',
  ancestor: 'previous',
  previous: 'previous',
  oldest_asg_dynamic: 'oldest',
  oldest: 'oldest',
  largest_asg_dynamic: 'largest',
  largest: 'largest',
  fail: 'only',
};

/**
 * Newest first: by moniker sequence when both carry one (versions made within one second have the
 * same creation time), else by creation time, then by name.
 */
function newestFirst(a: ServerGroup, b: ServerGroup): number {
  const [sa, sb] = [a.moniker.sequence, b.moniker.sequence];
  if (sa != null && sb != null && sa !== sb) return sb - sa;
  return (b.createdTime ?? -1) - (a.createdTime ?? -1) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

export type TargetOutcome = { found: ServerGroup } | { missing: string };

/**
 * The target among the server groups (one cluster, one namespace), ordered by `newestFirst`. `validateOldest`: the oldest of a single server group is no target (it is also the
 * newest, and a pipeline disabling "the oldest" would take the cluster down).
 */
export function pickTarget(
  serverGroups: readonly ServerGroup[],
  target: Target,
  validateOldest: boolean,
): TargetOutcome {
  const sorted = [...serverGroups].sort(newestFirst);
  const [newest] = sorted;
  if (newest === undefined) return { missing: 'the cluster has no server group here' };
  switch (KIND_OF[target]) {
    case 'newest':
      return { found: newest };
    case 'previous': {
      const previous = sorted[1];
      return previous === undefined
        ? { missing: 'there is no server group before the newest' }
        : { found: previous };
    }
    case 'oldest': {
      const oldest = sorted[sorted.length - 1] ?? newest;
      if (validateOldest && sorted.length === 1)
        return { missing: 'the only server group is not the oldest of several' };
      return { found: oldest };
    }
    case 'largest': {
      let largest = newest;
      for (const sg of sorted) if (sg.instanceCounts.total > largest.instanceCounts.total) largest = sg;
      return { found: largest };
    }
    case 'only':
      return sorted.length > 1
        ? { missing: `${sorted.length} server groups, where target fail wants one` }
        : { found: newest };
  }
}
