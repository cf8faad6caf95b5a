// Spinnaker names kinds its own way: lower camel case for built-in kinds (`deployment`,
// `replicaSet`, aliases such as `deploy` and `svc`), `Kind.group` for the rest
// (`Rollout.argoproj.io`). The agent needs apiVersion and kind. Built-in kinds come from a table;
// any other kind from the cache, which holds the kinds the account's cluster serves and that were
// cached there.
import { sql } from 'kysely';
import type { Database } from '../store/index.ts';

export interface ResolvedKind {
  apiVersion: string;
  kind: string;
}

const BUILT_IN: ReadonlyArray<[apiVersion: string, kind: string, aliases: string[]]> = [
  ['v1', 'Pod', ['po']],
  ['v1', 'Service', ['svc']],
  ['v1', 'ConfigMap', ['cm']],
  ['v1', 'Secret', []],
  ['v1', 'Namespace', ['ns']],
  ['v1', 'ServiceAccount', ['sa']],
  ['v1', 'PersistentVolumeClaim', ['pvc']],
  ['v1', 'PersistentVolume', ['pv']],
  ['v1', 'Endpoints', []],
  ['v1', 'Event', []],
  ['v1', 'LimitRange', []],
  ['v1', 'ResourceQuota', []],
  ['apps/v1', 'Deployment', ['deploy']],
  ['apps/v1', 'ReplicaSet', ['rs']],
  ['apps/v1', 'StatefulSet', ['sts']],
  ['apps/v1', 'DaemonSet', ['ds']],
  ['apps/v1', 'ControllerRevision', []],
  ['batch/v1', 'Job', []],
  ['batch/v1', 'CronJob', []],
  ['networking.k8s.io/v1', 'Ingress', ['ing']],
  ['networking.k8s.io/v1', 'NetworkPolicy', ['netpol']],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', ['hpa']],
  ['policy/v1', 'PodDisruptionBudget', ['pdb']],
  ['rbac.authorization.k8s.io/v1', 'Role', []],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', []],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', []],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', []],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', ['crd']],
  ['storage.k8s.io/v1', 'StorageClass', ['sc']],
];

const BY_NAME = new Map<string, ResolvedKind>(
  BUILT_IN.flatMap(([apiVersion, kind, aliases]) =>
    [kind, ...aliases].map((name) => [name.toLowerCase(), { apiVersion, kind }] as const),
  ),
);

export class KindResolver {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** The kind, or undefined when neither the table nor the account's cache knows it. */
  async resolve(account: string, spinnakerKind: string): Promise<ResolvedKind | undefined> {
    const dot = spinnakerKind.indexOf('.');
    const kind = dot < 0 ? spinnakerKind : spinnakerKind.slice(0, dot);
    const group = dot < 0 ? undefined : spinnakerKind.slice(dot + 1);
    if (group === undefined) {
      const builtIn = BY_NAME.get(kind.toLowerCase());
      if (builtIn !== undefined) return builtIn;
    }
    let query = this.#db
      .selectFrom('resources')
      .select(['api_group', 'api_version', 'kind'])
      .where('account', '=', account)
      .where(sql<string>`lower(kind)`, '=', kind.toLowerCase());
    if (group !== undefined) query = query.where('api_group', '=', group);
    const row = await query.limit(1).executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      apiVersion: row.api_group === '' ? row.api_version : `${row.api_group}/${row.api_version}`,
      kind: row.kind,
    };
  }
}
