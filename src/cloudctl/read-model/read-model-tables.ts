// The read model's index: columns of each `resources` row with what reads need, derived at ingest
// (read-index.ts), and `read_objects`, the view of the rows that have them. Derived values live in
// the object's own row, so whatever removes an object (a delete event, a snapshot end, an
// eviction) removes them in the same statement, and ingest writes one row per object, not two.
// The view's row type and the migration (0004_read_model).
import { type Kysely, type Migration, sql } from 'kysely';
import type { Json, NullableJson } from '../store/index.ts';
import { INDEX_COLUMNS } from './read-index.ts';

/** The read model's index: what reads need of each cached object, derived at ingest. */
export interface ReadObjectsTable {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  name: string;
  api_version: string;
  uid: string;
  /** Spinnaker's spelling: `replicaSet`, `Rollout.argoproj.io`. */
  spinnaker_kind: string;
  /** serverGroup, serverGroupManager, instance, loadBalancer, securityGroup, job or raw. */
  role: string;
  application: string | null;
  cluster: string | null;
  stack: string | null;
  detail: string | null;
  sequence: number | null;
  /** The controlling owner, Spinnaker-spelled kind and name. */
  owner_kind: string | null;
  owner_name: string | null;
  /** Record<string, string> */
  labels: Json;
  /** Selector (read-model/object-mapping.ts) or null */
  selector: NullableJson;
  created_time: number | null;
  /** ObjectSummary (read-model/object-mapping.ts) */
  summary: Json;
}

export interface ReadModelTables {
  read_objects: ReadObjectsTable;
}

export const readModelMigration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const column of INDEX_COLUMNS) {
      await sql`alter table resources add column ${sql.ref(column.name)} ${sql.raw(column.type)}`.execute(db);
    }
    // Partial: objects no read uses (role null) cost these indexes nothing at ingest.
    await db.schema
      .createIndex('resources_application_idx')
      .on('resources')
      .columns(['application', 'account', 'role'])
      .where(sql.ref('application'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('resources_owner_idx')
      .on('resources')
      .columns(['account', 'namespace', 'owner_kind', 'owner_name'])
      .where(sql.ref('owner_name'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('resources_role_idx')
      .on('resources')
      .columns(['account', 'role', 'namespace'])
      // No read asks for raw objects by role (they are read by application), and they are most.
      .where(sql.ref('role'), '<>', 'raw')
      .execute();
    // Empty labels and summaries are stored as null (most objects have neither): less to write.
    const shown = INDEX_COLUMNS.map((c) =>
      c.name === 'labels' || c.name === 'summary'
        ? sql`coalesce(${sql.ref(c.name)}, '{}'::jsonb) as ${sql.ref(c.name)}`
        : sql.ref(c.name),
    );
    await sql`create view read_objects as
      select account, api_group, kind, namespace, name, api_version, ${sql.join(shown)}
      from resources where role is not null`.execute(db);
  },
};
