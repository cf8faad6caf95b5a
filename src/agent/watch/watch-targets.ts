// Which scopes an account watches, from discovery and its settings:
//   - every preferred-version resource that can be listed and watched, except Events and Leases
//     (high churn, little value) unless `kinds` names them;
//   - `kinds` (if non-empty) keeps only those kinds, `omitKinds` drops kinds; both are singular kind
//     names matched without case, `Kind` or `Kind.group`;
//   - `namespaces` (if non-empty) splits namespaced kinds into one scope per namespace; otherwise one
//     scope watches all namespaces, skipping `omitNamespaces` with a field selector;
//   - `onlyNamespacedResources` drops cluster-scoped kinds; Namespaces and the CRDs in
//     `customResourceDefinitions` are then sent as synthetic objects, never listed or watched.
import type { ApiResource } from '../../kube/index.ts';
import type { AccountConfig } from '../config/index.ts';

export interface WatchTarget {
  resource: ApiResource;
  /** '' for all namespaces or a cluster-scoped kind. */
  namespace: string;
  fieldSelector?: string;
}

const NOISY = new Set(['event', 'event.events.k8s.io', 'lease', 'lease.coordination.k8s.io']);

function names(resource: ApiResource): string[] {
  const kind = resource.kind.toLowerCase();
  return resource.group === '' ? [kind] : [kind, `${kind}.${resource.group}`];
}

function listed(set: ReadonlyArray<string>, resource: ApiResource): boolean {
  const wanted = new Set(set.map((k) => k.toLowerCase()));
  return names(resource).some((n) => wanted.has(n));
}

export function watchTargets(resources: ReadonlyArray<ApiResource>, account: AccountConfig): WatchTarget[] {
  const crdKinds = account.customResourceDefinitions.map((c) => c.kind.toLowerCase());
  const candidates = resources.filter((r) => {
    if (!r.preferred || !r.verbs.includes('list') || !r.verbs.includes('watch')) return false;
    if (
      account.kinds.length > 0 &&
      !listed(account.kinds, r) &&
      !(account.onlyNamespacedResources && crdKinds.some((k) => names(r).includes(k)))
    )
      return false;
    if (account.kinds.length === 0 && names(r).some((n) => NOISY.has(n))) return false;
    if (listed(account.omitKinds, r)) return false;
    if (account.onlyNamespacedResources && !r.namespaced) return false;
    return true;
  });
  const omit = account.omitNamespaces.map((ns) => `metadata.namespace!=${ns}`).join(',');
  return candidates.flatMap((resource): WatchTarget[] => {
    if (!resource.namespaced) return [{ resource, namespace: '' }];
    if (account.namespaces.length > 0) {
      return account.namespaces
        .filter((ns) => !account.omitNamespaces.includes(ns))
        .map((namespace) => ({ resource, namespace }));
    }
    return [{ resource, namespace: '', ...(omit ? { fieldSelector: omit } : {}) }];
  });
}

/** The synthetic objects of `onlyNamespacedResources`: the allowed namespaces and the listed CRDs. */
export function syntheticObjects(resources: ReadonlyArray<ApiResource>, account: AccountConfig) {
  const namespaces = account.namespaces.map((name) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  }));
  const crds = account.customResourceDefinitions.map((crd) => {
    const [kind = '', ...groupParts] = crd.kind.split('.');
    const group = groupParts.join('.');
    const served = resources.find((r) => r.group === group && r.kind.toLowerCase() === kind.toLowerCase());
    const plural = served?.resource ?? `${kind.toLowerCase()}s`;
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: { group, scope: crd.scope, names: { kind: served?.kind ?? kind, plural } },
    };
  });
  return { namespaces, crds };
}
