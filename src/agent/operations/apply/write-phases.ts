// The order of a deploy's writes: phases written one after another, the manifests of one phase at
// once. A phase holds what the phases after it need to exist when they are admitted or started:
//   1. Namespaces: every namespaced object needs its Namespace.
//   2. CustomResourceDefinitions: a custom resource needs its CRD (the caller waits for Established).
//   3. What other objects name: a Pod is refused without its ServiceAccount, PriorityClass or
//      RuntimeClass; a binding to a missing Role is refused unless the writer may bind any role;
//      LimitRanges and ResourceQuotas judge pods as they are admitted; a pod started before its
//      ConfigMap or Secret fails to start until they exist; an Ingress takes the default IngressClass
//      and a claim its StorageClass as they stand then.
//   4. Everything else (workloads, Services, bindings, custom resources, ...), in any order.
// The given order counts only between phases: a deploy of ten ordinary objects is two rounds of
// writes, not ten. A name given twice is written again only after its first write settled, so the
// later manifest wins as it would one after another. Admission webhooks and policies stay in the last
// phase: the API server takes them up a moment after they are stored anyway, and a failing webhook
// written first would refuse its own backend.
import { groupOf, type Manifest } from './manifest.ts';

/** `group/kind` of the kinds others name (phase 3); the core group is ''. */
const REFERENCED = new Set([
  '/ServiceAccount',
  '/ConfigMap',
  '/Secret',
  '/LimitRange',
  '/ResourceQuota',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/ClusterRole',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'storage.k8s.io/StorageClass',
  'networking.k8s.io/IngressClass',
]);

/** A token Secret names its ServiceAccount: the token controller deletes one whose account is missing. */
const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';

function phaseOf(m: Manifest): number {
  const kindKey = `${groupOf(m.apiVersion)}/${m.kind}`;
  if (kindKey === '/Namespace') return 0;
  if (kindKey === 'apiextensions.k8s.io/CustomResourceDefinition') return 1;
  if (kindKey === '/Secret' && m.type === SERVICE_ACCOUNT_TOKEN) return 3;
  return REFERENCED.has(kindKey) ? 2 : 3;
}

/**
 * The manifests' indices in rounds of writes: each round is written at once, after the one before.
 * A name repeated within a phase (namespace aside: a manifest may leave it to the default) goes to
 * the round after its previous occurrence.
 */
export function writePhases(manifests: ReadonlyArray<Manifest>): number[][] {
  const rounds: number[][][] = [[], [], [], []];
  const seen = new Map<string, number>();
  for (const [i, m] of manifests.entries()) {
    const phase = phaseOf(m);
    const key = `${groupOf(m.apiVersion)}/${m.kind}/${m.metadata.name}`;
    const repeat = seen.get(key) ?? 0;
    seen.set(key, repeat + 1);
    const inPhase = rounds[phase] as number[][];
    while (inPhase.length <= repeat) inPhase.push([]);
    inPhase[repeat]?.push(i);
  }
  return rounds.flat();
}

const resultRank = (m: Manifest) =>
  m.kind === 'Namespace' ? 0 : m.kind === 'CustomResourceDefinition' ? 1 : 2;

/** The order a deploy reports its objects in: Namespaces, then CRDs, then the rest as given. */
export function resultOrder(manifests: ReadonlyArray<Manifest>): number[] {
  return manifests
    .map((m, i) => ({ m, i }))
    .sort((a, b) => resultRank(a.m) - resultRank(b.m) || a.i - b.i)
    .map(({ i }) => i);
}
