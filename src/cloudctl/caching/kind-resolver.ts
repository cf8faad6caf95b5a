// Spinnaker names kinds its own way: lower camel case for built-in kinds (`deployment`,
// `replicaSet`, aliases such as `deploy` and `svc`), `Kind.group` for the rest
// (`Rollout.argoproj.io`), and an object as "<kind> <name>". The agent needs apiVersion and kind.
// A kind cached for the account is read through the version its objects were cached with (the one
// the agent watches); other built-in kinds come from a table; a custom kind from the cache, or from
// its CustomResourceDefinition when the cache holds the CRD but no object of the kind: just deployed
// (the agent lists a new kind only once it has noticed it), or of a kind the account's `kinds` leave
// out, whose objects are then read live.
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import type { CacheTables } from './cache-tables.ts';
import { crdKind } from './crd-kind.ts';

export interface ResolvedKind {
  apiVersion: string;
  kind: string;
}

/** A custom kind an account's cached CustomResourceDefinition defines. */
export interface DefinedKind {
  account: string;
  group: string;
  /** Kubernetes' spelling, `CronTab`. */
  kind: string;
}

const CRD = { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' } as const;

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

/** The API groups whose kinds Spinnaker names without their group. */
const NATIVE_GROUPS = new Set([
  '',
  'core',
  'batch',
  'apps',
  'extensions',
  'storage.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'autoscaling',
  'admissionregistration.k8s.io',
  'policy',
  'scheduling.k8s.io',
  'settings.k8s.io',
  'authorization.k8s.io',
  'authentication.k8s.io',
  'rbac.authorization.k8s.io',
  'certificates.k8s.io',
  'networking.k8s.io',
]);

/** Where Spinnaker's spelling is not the kind with a lower-case first letter. */
const SPELLINGS: Record<string, string> = {
  APIService: 'apiService',
  CSIDriver: 'csiDriver',
  CSINode: 'csiNode',
  HorizontalPodAutoscaler: 'horizontalpodautoscaler',
};

/** Spinnaker's spelling of a kind: lower camel case for native groups, `Kind.group` otherwise. */
/** Whether apiVersion and kind name a built-in kind of the table (its scope is then known). */
export function isBuiltInKind(apiVersion: string, kind: string): boolean {
  const known = BY_NAME.get(kind.toLowerCase());
  const group = (v: string) => (v.includes('/') ? v.split('/')[0] : '');
  return known !== undefined && known.kind === kind && group(known.apiVersion) === group(apiVersion);
}

export function spinnakerKind(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  if (!NATIVE_GROUPS.has(group)) return `${kind}.${group}`;
  return SPELLINGS[kind] ?? `${kind.charAt(0).toLowerCase()}${kind.slice(1)}`;
}

export const manifestNameSchema = z
  .string()
  .regex(/^\S+ \S+$/, 'expected "<kind> <name>", e.g. "deployment web"')
  .describe('the object as "<kind> <name>", e.g. "deployment web"');

export function splitManifestName(manifestName: string): { kind: string; name: string } {
  const [kind = '', name = ''] = manifestName.split(' ');
  return { kind, name };
}

export class KindResolver {
  readonly #db: Kysely<CacheTables>;

  constructor(db: Kysely<CacheTables>) {
    this.#db = db;
  }

  /** The kind, or undefined when neither the table nor the account's cache knows it. */
  async resolve(account: string, spinnakerKind: string): Promise<ResolvedKind | undefined> {
    const dot = spinnakerKind.indexOf('.');
    const kind = dot < 0 ? spinnakerKind : spinnakerKind.slice(0, dot);
    const group = dot < 0 ? undefined : spinnakerKind.slice(dot + 1);
    if (group === undefined) {
      const builtIn = BY_NAME.get(kind.toLowerCase());
      if (builtIn !== undefined) return (await this.#cached(account, builtIn)) ?? builtIn;
    }
    let query = this.#db
      .selectFrom('resources')
      .select(['api_group', 'api_version', 'kind'])
      .where('account', '=', account)
      .where(sql<string>`lower(kind)`, '=', kind.toLowerCase());
    if (group !== undefined) query = query.where('api_group', '=', group);
    const row = await query.limit(1).executeTakeFirst();
    if (row === undefined)
      return group === undefined ? undefined : this.#fromDefinition(account, kind, group);
    return {
      apiVersion: row.api_group === '' ? row.api_version : `${row.api_group}/${row.api_version}`,
      kind: row.kind,
    };
  }

  /**
   * Custom kinds the accounts' cached CRDs define. Only the two names are read out of each body, in
   * the database: a CRD's schema can weigh hundreds of kilobytes.
   */
  async definedKinds(accounts: readonly string[]): Promise<DefinedKind[]> {
    if (accounts.length === 0) return [];
    const spec = sql`cast(body as json) -> 'spec'`;
    const rows = await this.#db
      .selectFrom('resources')
      .select([
        'account',
        sql<string | null>`${spec} ->> 'group'`.as('group'),
        sql<string | null>`${spec} -> 'names' ->> 'kind'`.as('kind'),
      ])
      .where('account', 'in', accounts)
      .where('api_group', '=', CRD.group)
      .where('kind', '=', CRD.kind)
      .execute();
    return rows.flatMap((r) =>
      r.group === null || r.kind === null ? [] : [{ account: r.account, group: r.group, kind: r.kind }],
    );
  }

  /** A custom kind no object of which is cached, from the account's cached CRD of it. */
  async #fromDefinition(account: string, kind: string, group: string): Promise<ResolvedKind | undefined> {
    // A CRD is named `<plural>.<group>`: the name narrows the bodies read to the group's CRDs.
    const rows = await this.#db
      .selectFrom('resources')
      .select('body')
      .where('account', '=', account)
      .where('api_group', '=', CRD.group)
      .where('kind', '=', CRD.kind)
      .where('name', 'like', `%.${group}`)
      .execute();
    for (const row of rows) {
      const defined = crdKind(parseBody(row.body));
      if (defined?.group !== group || defined.kind.toLowerCase() !== kind.toLowerCase()) continue;
      if (defined.version === undefined) return undefined;
      return { apiVersion: `${group}/${defined.version}`, kind: defined.kind };
    }
    return undefined;
  }

  /** A built-in kind as cached for the account, where the cluster serves it at another version. */
  async #cached(account: string, builtIn: ResolvedKind): Promise<ResolvedKind | undefined> {
    const group = builtIn.apiVersion.includes('/') ? (builtIn.apiVersion.split('/')[0] ?? '') : '';
    const row = await this.#db
      .selectFrom('resources')
      .select('api_version')
      .where('account', '=', account)
      .where('api_group', '=', group)
      .where('kind', '=', builtIn.kind)
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return { apiVersion: group === '' ? row.api_version : `${group}/${row.api_version}`, kind: builtIn.kind };
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
