// The read model's table: one row per cached object with what reads need, derived at ingest. Its
// key is the resources row's, with a cascading foreign key, so whatever removes an object (a delete
// event, a snapshot end, an eviction) removes its row in the same statement.
import { type Kysely, type Migration, sql } from 'kysely';

export const readModelMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('read_objects')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('api_version', 'text', (c) => c.notNull())
      .addColumn('uid', 'text', (c) => c.notNull())
      .addColumn('spinnaker_kind', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('application', 'text')
      .addColumn('cluster', 'text')
      .addColumn('stack', 'text')
      .addColumn('detail', 'text')
      .addColumn('sequence', 'integer')
      .addColumn('owner_kind', 'text')
      .addColumn('owner_name', 'text')
      .addColumn('labels', 'jsonb', (c) => c.notNull())
      .addColumn('selector', 'jsonb')
      .addColumn('created_time', 'double precision')
      .addColumn('summary', 'jsonb', (c) => c.notNull())
      .addPrimaryKeyConstraint('read_objects_pk', ['account', 'api_group', 'kind', 'namespace', 'name'])
      .addForeignKeyConstraint(
        'read_objects_resource_fk',
        ['account', 'api_group', 'kind', 'namespace', 'name'],
        'resources',
        ['account', 'api_group', 'kind', 'namespace', 'name'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    await db.schema
      .createIndex('read_objects_application_idx')
      .on('read_objects')
      .columns(['application', 'account', 'role'])
      .where(sql.ref('application'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('read_objects_owner_idx')
      .on('read_objects')
      .columns(['account', 'namespace', 'owner_kind', 'owner_name'])
      .execute();
    await db.schema
      .createIndex('read_objects_role_idx')
      .on('read_objects')
      .columns(['account', 'role', 'namespace'])
      .execute();
  },
};
