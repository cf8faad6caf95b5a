// The drift feature's table: what cloudctl last deployed of each object, the manifest exactly as its
// deploy step sent it to the agent (Secret values included, as a task's steps hold them: never
// answered, only applied again), keyed by account, API group, kind, namespace and name, with the
// content hash it carried. Re-apply plans it again. Its row type and its migration
// (0020_deployed_manifests).
import type { Kysely, Migration } from 'kysely';
import type { Timestamp } from '../store/index.ts';

export interface DeployedManifestsTable {
  account: string;
  api_group: string;
  kind: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
  name: string;
  /** The manifest as JSON text. */
  manifest: string;
  /** Its `deploy.vendor.io/content-hash`; null when it carried none. */
  content_hash: string | null;
  deployed_at: Timestamp;
}

export interface DriftTables {
  deployed_manifests: DeployedManifestsTable;
}

export const deployedManifestsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('deployed_manifests')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('api_group', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('manifest', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text')
      .addColumn('deployed_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('deployed_manifests_pk', ['account', 'api_group', 'kind', 'namespace', 'name'])
      .execute();
  },
};
