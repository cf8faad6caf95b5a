// The read model's queries: they read the index rows (read_objects) written at ingest, never the
// cached bodies, and only the rows a request is about: an application's objects, the pods its server
// groups own, the load balancers in their namespaces.
import { type Kysely, type Selectable, sql } from 'kysely';
import { z } from 'zod';
import type { CacheTables } from '../caching/index.ts';
import { prepared } from '../store/index.ts';
import {
  type ObjectIndex,
  objectSummarySchema,
  type Role,
  roleSchema,
  selectorSchema,
} from './object-mapping.ts';
import type { ReadModelTables, ReadObjectsTable } from './read-model-tables.ts';

/** An index row as read back: where the object is, and what ingest derived from it (the owner flat). */
export type IndexedObject = Omit<ObjectIndex, 'owner'> & {
  account: string;
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  ownerKind: string | null;
  ownerName: string | null;
};

/**
 * What the read model reads: its index, and the cache's own rows where a read is about objects of a
 * kind whatever their role (a search by kind): by their key columns, and the moniker columns the
 * read model adds to them (read-model-tables.ts), which the cache's row type does not name.
 */
type ReadModelDatabase = ReadModelTables & Pick<CacheTables, 'resources' | 'resume_versions'>;

/** A kind as the cache keys it. */
export interface KindKey {
  group: string;
  kind: string;
}

/** An object found by its kind: where it is, and the moniker columns derived at ingest (null when none). */
export interface KindObject extends KindKey {
  account: string;
  namespace: string;
  name: string;
  application: string | null;
  cluster: string | null;
}

/** An application's objects with the objects around them that its reads need. */
export interface ApplicationObjects {
  /** Objects carrying the application, and server groups its server group managers own. */
  objects: IndexedObject[];
  /** Pods the server groups own. */
  instances: IndexedObject[];
  /** Load balancers in the server groups' namespaces, of any application (they select by label). */
  loadBalancers: IndexedObject[];
  /** NetworkPolicies in the server groups' namespaces, of any application (they select pods by label). */
  securityGroups: IndexedObject[];
}

/** Which parts around an application's server groups a read needs; each is fetched unless false. */
export interface ApplicationParts {
  /** The pods its server groups own (a server group's instances and their counts). */
  instances?: boolean;
  /** Load balancers of the server groups' namespaces (a server group's load balancers, `disabled`). */
  loadBalancers?: boolean;
  /** NetworkPolicies of the server groups' namespaces (a server group's `securityGroups`). */
  securityGroups?: boolean;
}

export interface ApplicationCluster {
  application: string;
  account: string;
  /** Null for an object that forms no cluster (only server groups and their managers do). */
  cluster: string | null;
}

const CLUSTER_ROLES = ['serverGroup', 'serverGroupManager'];

const labelsSchema = z.record(z.string(), z.string());

function toIndexed(row: Selectable<ReadObjectsTable>): IndexedObject {
  return {
    account: row.account,
    group: row.api_group,
    version: row.api_version,
    kind: row.kind,
    namespace: row.namespace,
    name: row.name,
    uid: row.uid,
    spinnakerKind: row.spinnaker_kind,
    role: roleSchema.parse(row.role),
    application: row.application,
    cluster: row.cluster,
    stack: row.stack,
    detail: row.detail,
    sequence: row.sequence,
    ownerKind: row.owner_kind,
    ownerName: row.owner_name,
    labels: labelsSchema.parse(row.labels),
    selector: row.selector === null ? null : selectorSchema.parse(row.selector),
    createdTime: row.created_time === null ? null : Number(row.created_time),
    summary: objectSummarySchema.parse(row.summary),
  };
}

/** `%` and `_` in a user's search are literal. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const keyOf = (o: { account: string; namespace: string; spinnakerKind: string; name: string }) =>
  `${o.account}\0${o.namespace}\0${o.spinnakerKind} ${o.name}`;
const ownerKeyOf = (o: IndexedObject) => `${o.account}\0${o.namespace}\0${o.ownerKind} ${o.ownerName}`;

export class ReadModel {
  readonly #db: Kysely<ReadModelDatabase>;

  constructor(db: Kysely<ReadModelDatabase>) {
    this.#db = db;
  }

  #select() {
    return this.#db.selectFrom('read_objects').selectAll();
  }

  /** Each application of the accounts with its clusters per account. */
  async applicationClusters(accounts: readonly string[]): Promise<ApplicationCluster[]> {
    if (accounts.length === 0) return [];
    const rows = await this.#db
      .selectFrom('read_objects')
      .select([
        'application',
        'account',
        sql<string | null>`case when role in (${sql.join(CLUSTER_ROLES)}) then cluster end`.as('cluster'),
      ])
      .distinct()
      .where('application', 'is not', null)
      .where('account', 'in', accounts)
      .execute();
    return rows.map((r) => ({ application: r.application ?? '', account: r.account, cluster: r.cluster }));
  }

  /** Whether any object of any account carries the application (for `restricted=false`). */
  async applicationNames(): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('read_objects')
      .select('application')
      .distinct()
      .where('application', 'is not', null)
      .execute();
    return rows.map((r) => r.application ?? '');
  }

  /**
   * The application's objects of the roles (every role when not given) with the parts around its
   * server groups that the caller asks for (each by default). Most of an application's objects are
   * usually raw (ConfigMaps, Secrets): reads that show server groups and load balancers leave them
   * in the database, and a read that shows no instances, say, does not fetch the pods.
   */
  async application(
    application: string,
    accounts: readonly string[],
    roles?: readonly Role[],
    parts: ApplicationParts = {},
  ): Promise<ApplicationObjects> {
    const found: ApplicationObjects = { objects: [], instances: [], loadBalancers: [], securityGroups: [] };
    if (accounts.length === 0) return found;
    const { instances = true, loadBalancers = true, securityGroups = true } = parts;
    // Roles are written into the text, not sent as values: there are few (roleSchema's), and the
    // statement is prepared: a plan made without knowing the roles was slower than planning anew.
    const ofRoles =
      roles === undefined ? sql`` : sql`and role in (${sql.join(roles.map((r) => sql.lit(r)))})`;
    // Server groups the application's managers own are its own even without its mark; a read that
    // shows no server groups needs neither them nor what surrounds them.
    const withServerGroups = roles === undefined || roles.includes('serverGroup');
    const nearRoles = [
      ...(withServerGroups && loadBalancers ? ['loadBalancer'] : []),
      ...(withServerGroups && securityGroups ? ['securityGroup'] : []),
    ];
    // The accounts as one array: the statement's text stays the same whatever their number, so it
    // is prepared once per connection (it takes longer to plan than to run).
    const readable = [...accounts];
    const ofApplication = sql`application = ${application} and account = any(${readable}::text[])`;
    // One statement, one round trip: the rows a view of the application is made of, each marked
    // with why it is there. Owners join on the index's columns, as #owned does; selectors (load
    // balancers, NetworkPolicies) are matched by the views, over those of the server groups'
    // namespaces. A managed server group that carries the application is already among its own.
    const { rows } = await sql<Selectable<ReadObjectsTable> & { part: string }>`${prepared}
      with own as (
        select * from read_objects where ${ofApplication} ${ofRoles}
      ), managed as (
        select g.* from read_objects g join read_objects m
          on g.account = m.account and g.namespace = m.namespace
          and g.owner_kind = m.spinnaker_kind and g.owner_name = m.name
        where ${withServerGroups ? sql`true` : sql`false`}
          and m.application = ${application} and m.account = any(${readable}::text[])
          and m.role = 'serverGroupManager' and g.role = 'serverGroup'
          and g.application is distinct from ${application}
      ), server_groups as (
        select account, namespace, spinnaker_kind, name from own where role = 'serverGroup'
        union
        select account, namespace, spinnaker_kind, name from managed
      )
      select 'own' as part, * from own
      union all
      select 'managed', * from managed
      ${
        instances && withServerGroups
          ? sql`union all
      select 'instance', p.* from read_objects p join server_groups g
        on p.account = g.account and p.namespace = g.namespace
        and p.owner_kind = g.spinnaker_kind and p.owner_name = g.name
      where p.role = 'instance'`
          : sql``
      }
      ${
        nearRoles.length > 0
          ? sql`union all
      select 'near', * from read_objects
      where role in (${sql.join(nearRoles.map((r) => sql.lit(r)))})
        and (account, namespace) in (select account, namespace from server_groups)`
          : sql``
      }`.execute(this.#db);
    const nearBalancers = new Map<string, IndexedObject>();
    for (const row of rows) {
      const o = toIndexed(row);
      if (row.part === 'instance') found.instances.push(o);
      else if (row.part === 'near' && o.role === 'securityGroup') found.securityGroups.push(o);
      else if (row.part === 'near') nearBalancers.set(keyOf(o), o);
      else {
        found.objects.push(o);
        if (o.role === 'loadBalancer') nearBalancers.set(keyOf(o), o);
      }
    }
    found.loadBalancers = [...nearBalancers.values()];
    return found;
  }

  /** Whether any object of the accounts carries the application. */
  async hasApplication(application: string, accounts: readonly string[]): Promise<boolean> {
    if (accounts.length === 0) return false;
    const row = await this.#db
      .selectFrom('read_objects')
      .select('name')
      .where('application', '=', application)
      .where('account', 'in', accounts)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Objects of the role whose controlling owner is one of `owners` (same account and namespace). */
  async #owned(owners: readonly IndexedObject[], role: Role): Promise<IndexedObject[]> {
    const wanted = new Set(owners.map(keyOf));
    const rows = await this.#select()
      .where('account', 'in', [...new Set(owners.map((o) => o.account))])
      .where('namespace', 'in', [...new Set(owners.map((o) => o.namespace))])
      .where('role', '=', role)
      .where('owner_kind', 'in', [...new Set(owners.map((o) => o.spinnakerKind))])
      .where('owner_name', 'in', [...new Set(owners.map((o) => o.name))])
      .execute();
    return rows.map(toIndexed).filter((o) => wanted.has(ownerKeyOf(o)));
  }

  /** One object by account, namespace and Spinnaker kind and name. */
  async find(
    account: string,
    namespace: string,
    spinnakerKind: string,
    name: string,
  ): Promise<IndexedObject | undefined> {
    const row = await this.#select()
      .where('account', '=', account)
      .where('namespace', '=', namespace)
      .where('spinnaker_kind', '=', spinnakerKind)
      .where('name', '=', name)
      .executeTakeFirst();
    return row === undefined ? undefined : toIndexed(row);
  }

  /** Objects of the role the owner controls (a Job's pods). */
  async ownedBy(owner: IndexedObject, role: Role): Promise<IndexedObject[]> {
    return this.#owned([owner], role);
  }

  /** Every object of the role in the accounts, optionally of one namespace. */
  async byRole(accounts: readonly string[], role: Role, namespace?: string): Promise<IndexedObject[]> {
    if (accounts.length === 0) return [];
    let query = this.#select().where('account', 'in', accounts).where('role', '=', role);
    if (namespace !== undefined) query = query.where('namespace', '=', namespace);
    const rows = await query.orderBy('account').orderBy('namespace').orderBy('name').execute();
    return rows.map(toIndexed);
  }

  /**
   * Objects of the roles in the accounts whose "<kind> <name>" or application contains `q`
   * (case-insensitive): how many in all, and `limit` of them from `offset`, ordered by account,
   * namespace, kind and name.
   */
  async search(
    accounts: readonly string[],
    roles: readonly Role[],
    q: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; objects: IndexedObject[] }> {
    if (accounts.length === 0 || roles.length === 0) return { total: 0, objects: [] };
    const pattern = `%${likeEscape(q)}%`;
    const matching = this.#db
      .selectFrom('read_objects')
      .where('account', 'in', accounts)
      .where('role', 'in', roles)
      .where((eb) =>
        eb.or([
          eb(sql<string>`spinnaker_kind || ' ' || name`, 'ilike', pattern),
          eb('application', 'ilike', pattern),
        ]),
      );
    const count = async () =>
      Number((await matching.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    if (limit <= 0) return { total: await count(), objects: [] };
    // The page and the number of matches in one statement; past the last match it has no row to
    // carry the number, so only then is counting a second statement.
    const rows = await matching
      .selectAll()
      .select(sql<string>`count(*) over ()`.as('total'))
      .orderBy('account')
      .orderBy('namespace')
      .orderBy('spinnaker_kind')
      .orderBy('name')
      .offset(offset)
      .limit(limit)
      .execute();
    const first = rows[0];
    const total = first !== undefined ? Number(first.total) : offset === 0 ? 0 : await count();
    return { total, objects: rows.map(toIndexed) };
  }

  /** The kinds the accounts watch: one resume version per watched scope, read on its key. */
  async watchedKinds(accounts: readonly string[]): Promise<KindKey[]> {
    if (accounts.length === 0) return [];
    const rows = await this.#db
      .selectFrom('resume_versions')
      .select(['api_group', 'kind'])
      .distinct()
      .where('account', 'in', accounts)
      .execute();
    return rows.map((r) => ({ group: r.api_group, kind: r.kind }));
  }

  /**
   * Objects of the kinds in the accounts, of every role and none, whose account, namespace, name,
   * application or cluster contains `q` (case-insensitive): how many in all, and `limit` of them from
   * `offset`, ordered by account, namespace, kind and name. The cache's key (account, group, kind)
   * narrows the rows; the rest is matched on those rows' columns, never on a body.
   */
  async searchKinds(
    accounts: readonly string[],
    kinds: readonly KindKey[],
    q: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; objects: KindObject[] }> {
    if (accounts.length === 0 || kinds.length === 0) return { total: 0, objects: [] };
    const pattern = `%${likeEscape(q)}%`;
    const matching = this.#db
      .selectFrom('resources')
      .where('account', 'in', accounts)
      .where((eb) =>
        eb.or(kinds.map((k) => eb.and([eb('api_group', '=', k.group), eb('kind', '=', k.kind)]))),
      )
      .where((eb) =>
        eb.or([
          eb('namespace', 'ilike', pattern),
          eb('name', 'ilike', pattern),
          eb('account', 'ilike', pattern),
          eb(sql.ref('application'), 'ilike', pattern),
          eb(sql.ref('cluster'), 'ilike', pattern),
        ]),
      );
    const count = async () =>
      Number((await matching.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    if (limit <= 0) return { total: await count(), objects: [] };
    const rows = await matching
      .select(['account', 'api_group', 'kind', 'namespace', 'name'])
      .select([sql<string | null>`application`.as('application'), sql<string | null>`cluster`.as('cluster')])
      .select(sql<string>`count(*) over ()`.as('total'))
      .orderBy('account')
      .orderBy('namespace')
      .orderBy('kind')
      .orderBy('name')
      .offset(offset)
      .limit(limit)
      .execute();
    const first = rows[0];
    const total = first !== undefined ? Number(first.total) : offset === 0 ? 0 : await count();
    const objects = rows.map((r) => ({
      account: r.account,
      group: r.api_group,
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      application: r.application,
      cluster: r.cluster,
    }));
    return { total, objects };
  }
}
