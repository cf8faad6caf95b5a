// The cluster lookups converters are given: objects from the resource cache (bodies as agents sent
// them) and a server group's pods from the read model's index, which knows each pod's controller.
import { isRecord } from '../../lib/is-record.ts';
import type { CacheStore, KindResolver } from '../caching/index.ts';
import type { ReadModel } from '../read-model/index.ts';
import type { ClusterLookups, PodLabels } from './converters/index.ts';

export interface ClusterLookupDeps {
  cache: Pick<CacheStore, 'object'>;
  kinds: Pick<KindResolver, 'resolve'>;
  readModel: Pick<ReadModel, 'find' | 'ownedBy'>;
}

export function clusterLookups(deps: ClusterLookupDeps): ClusterLookups {
  return {
    async object(account, spinnakerKind, namespace, name) {
      const resolved = await deps.kinds.resolve(account, spinnakerKind);
      if (resolved === undefined) return undefined;
      const slash = resolved.apiVersion.indexOf('/');
      const group = slash < 0 ? '' : resolved.apiVersion.slice(0, slash);
      const cached = await deps.cache.object(account, { group, kind: resolved.kind }, [namespace], name);
      return cached !== undefined && isRecord(cached.body) ? cached.body : undefined;
    },
    async podsOf(account, namespace, spinnakerKind, name): Promise<PodLabels[]> {
      const owner = await deps.readModel.find(account, namespace, spinnakerKind, name);
      if (owner === undefined) return [];
      const pods = await deps.readModel.ownedBy(owner, 'instance');
      return pods
        .map((pod) => ({ name: pod.name, labels: pod.labels }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
