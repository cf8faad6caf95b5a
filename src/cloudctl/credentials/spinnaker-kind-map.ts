// An account's `spinnakerKindMap` (GET /credentials?expand=true): which Spinnaker kind each Kubernetes
// kind is, as clouddriver's KubernetesSpinnakerKindMap answers it. Spinnaker's UI and Orca read it to
// know which kinds are server groups, load balancers, ... Clouddriver's handlers' table, then the
// account's custom kinds (declared in its definition, defined by a CRD it caches, or cached for it),
// which are unclassified. A custom kind is keyed as clients look it up, `crontab.stable.example.com`:
// clouddriver keys it as its account config spells it, and that config (and its integration cases)
// spells kinds in lower case.
import type { CachedKind, DefinedKind } from '../caching/index.ts';
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

/** `CronTab.stable.example.com` → `crontab.stable.example.com`: the kind in lower case, the group as is. */
function customKindKey(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot < 0
    ? qualified.toLowerCase()
    : `${qualified.slice(0, dot).toLowerCase()}${qualified.slice(dot)}`;
}

/** The account's map: the built-in kinds, then its custom kinds as unclassified. */
export function spinnakerKindMap(
  cached: readonly CachedKind[],
  definition?: Record<string, unknown>,
  defined: readonly DefinedKind[] = [],
): Record<string, string> {
  const map: Record<string, string> = { ...BUILT_IN };
  const found = [
    ...defined.map((k) => spinnakerKind(`${k.group}/v1`, k.kind)),
    ...cached.map((k) => spinnakerKind(k.group === '' ? 'v1' : `${k.group}/${k.version ?? 'v1'}`, k.kind)),
  ];
  const custom = [
    ...declaredKinds(definition),
    // Native kinds without a handler are left out, as clouddriver leaves them out.
    ...found.filter((kind) => kind.includes('.')),
  ].map(customKindKey);
  for (const kind of custom) if (!Object.hasOwn(map, kind)) map[kind] = 'unclassified';
  return map;
}
