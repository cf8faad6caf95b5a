// An account's `spinnakerKindMap` (GET /credentials?expand=true): which Spinnaker kind each Kubernetes
// kind is, as clouddriver's KubernetesSpinnakerKindMap answers it. Spinnaker's UI and Orca read it to
// know which kinds are server groups, load balancers, ... Clouddriver's handlers' table, then the
// account's custom kinds (declared in its definition, or cached for it), which are unclassified.
import type { CachedKind } from '../caching/index.ts';
import { spinnakerKind } from '../caching/index.ts';

/** Clouddriver's handlers: Kubernetes kind (Spinnaker's spelling) → Spinnaker kind. */
const BUILT_IN: Readonly<Record<string, string>> = {
  apiService: 'unclassified',
  clusterRole: 'unclassified',
  clusterRoleBinding: 'unclassified',
  configMap: 'configs',
  controllerRevision: 'unclassified',
  cronJob: 'serverGroups',
  customResourceDefinition: 'unclassified',
  daemonSet: 'serverGroups',
  deployment: 'serverGroupManagers',
  event: 'unclassified',
  horizontalpodautoscaler: 'unclassified',
  ingress: 'loadBalancers',
  job: 'serverGroups',
  limitRange: 'unclassified',
  mutatingWebhookConfiguration: 'unclassified',
  namespace: 'unclassified',
  networkPolicy: 'securityGroups',
  persistentVolume: 'configs',
  persistentVolumeClaim: 'configs',
  pod: 'instances',
  podDisruptionBudget: 'unclassified',
  podPreset: 'unclassified',
  podSecurityPolicy: 'unclassified',
  replicaSet: 'serverGroups',
  role: 'unclassified',
  roleBinding: 'unclassified',
  secret: 'configs',
  service: 'loadBalancers',
  serviceAccount: 'unclassified',
  statefulSet: 'serverGroups',
  storageClass: 'unclassified',
  validatingWebhookConfiguration: 'unclassified',
};

/** Custom kinds as an account definition declares them (`customResourceDefinitions[].kind`, Kind.group). */
function declaredKinds(definition: Record<string, unknown> | undefined): string[] {
  const declared = definition?.customResourceDefinitions;
  if (!Array.isArray(declared)) return [];
  return declared.flatMap((d) =>
    typeof d === 'object' && d !== null && 'kind' in d && typeof d.kind === 'string' ? [d.kind] : [],
  );
}

/** The account's map: the built-in kinds, then its custom kinds as unclassified. */
export function spinnakerKindMap(
  cached: readonly CachedKind[],
  definition?: Record<string, unknown>,
): Record<string, string> {
  const map: Record<string, string> = { ...BUILT_IN };
  const custom = [
    ...declaredKinds(definition),
    ...cached
      .map((k) => spinnakerKind(k.group === '' ? 'v1' : `${k.group}/${k.version ?? 'v1'}`, k.kind))
      // Native kinds without a handler are left out, as clouddriver leaves them out.
      .filter((kind) => kind.includes('.')),
  ];
  for (const kind of custom) if (!Object.hasOwn(map, kind)) map[kind] = 'unclassified';
  return map;
}
