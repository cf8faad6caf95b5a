// The previews table: one row per preview URL a deployment's exposeServices step opened, kept after
// it expires or is revoked so the URL answers 410 (gone, and why) rather than 404. The token is the
// capability itself and is stored as it is: the deployment's record lists the URLs to those who may
// read the deployment. One row per (deployment, step, Service), so a step run again after a restart
// finds its links instead of making new ones. Its row type and its migration (0021_previews).
import type { Kysely, Migration } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../store/index.ts';

export interface PreviewsTable {
  /** Names the preview in the API (listing, revoking); not a secret. */
  id: string;
  /** The URL's secret part: 32 random bytes, base64url. */
  token: string;
  deployment_id: string;
  step_key: string;
  target: string;
  account: string;
  namespace: string;
  service: string;
  /** The Service's port the preview reaches (its number, as the proxy path takes it). */
  port: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_by: string | null;
}

export interface PreviewTables {
  previews: PreviewsTable;
}

export const previewsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('previews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token', 'text', (c) => c.notNull().unique())
      .addColumn('deployment_id', 'text', (c) => c.notNull())
      .addColumn('step_key', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('service', 'text', (c) => c.notNull())
      .addColumn('port', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('revoked_at', 'timestamptz')
      .addColumn('revoked_by', 'text')
      .addUniqueConstraint('previews_step_service', ['deployment_id', 'step_key', 'service'])
      .execute();
  },
};
