// Every feature's tables, and the order their migrations run in: the one place that knows them all,
// beside the composition root. Both databases (PGlite and PostgreSQL) run exactly these. Append new
// migrations; never rename or edit one that has shipped (a database records the names it ran).
import type { Kysely, Migration } from 'kysely';
import {
  type CacheTables,
  cacheBodyTextMigration,
  createCacheTables,
  resourceDriftMigration,
} from './caching/index.ts';
import {
  type CredentialTables,
  credentialsConfigFileMigration,
  credentialsMigration,
} from './credentials/index.ts';
import { type DeploymentTables, deploymentsMigration } from './deployments/index.ts';
import { type DriftTables, deployedManifestsMigration } from './drift/index.ts';
import {
  type DynamicAccountTables,
  dynamicAccountClusterMigration,
  dynamicAccountsMigration,
} from './dynamic-accounts/index.ts';
import { clientCredentialsMigration, type OAuthTables, oauthMigration } from './oauth/index.ts';
import {
  createOperationTables,
  type OperationTables,
  operationErrorCodeMigration,
} from './operations/index.ts';
import { type PlanTables, plansMigration } from './plans/index.ts';
import { type PreviewTables, previewsMigration } from './previews/index.ts';
import { type ReadModelTables, readModelMigration } from './read-model/index.ts';
import { type ReplicaTables, replicaMigration } from './replicas/index.ts';
import { createSessionTables, type SessionTables } from './sessions/index.ts';
import { type TaskTables, taskOwnerMigration, tasksMigration } from './tasks/index.ts';
import { type WatchTables, watchMigration } from './watch/index.ts';

/** The whole database as Kysely sees it: each feature's tables. */
export type CloudctlDatabase = SessionTables &
  CacheTables &
  OperationTables &
  TaskTables &
  CredentialTables &
  ReadModelTables &
  DynamicAccountTables &
  OAuthTables &
  ReplicaTables &
  DeploymentTables &
  DriftTables &
  WatchTables &
  PlanTables &
  PreviewTables;

/** The first migration made three features' tables in one step, in this order. */
const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await createSessionTables(db);
    await createCacheTables(db);
    await createOperationTables(db);
  },
};

export const CLOUDCTL_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_credentials': credentialsMigration,
  '0003_tasks': tasksMigration,
  '0004_read_model': readModelMigration,
  '0005_dynamic_accounts': dynamicAccountsMigration,
  '0006_oauth': oauthMigration,
  // 0007 and 0008 were kept for the deployment service, which landed after 0009: a database
  // already at 0009 would refuse an earlier migration, so its tables are 0010.
  '0009_replicas': replicaMigration,
  '0010_deployments': deploymentsMigration,
  '0011_credentials_config_file': credentialsConfigFileMigration,
  '0012_cache_body_text': cacheBodyTextMigration,
  '0013_operation_error_code': operationErrorCodeMigration,
  '0014_watch_sequence': watchMigration,
  '0015_task_owner': taskOwnerMigration,
  '0016_dynamic_account_cluster': dynamicAccountClusterMigration,
  '0017_plans': plansMigration,
  '0018_resource_drift': resourceDriftMigration,
  '0019_client_credentials': clientCredentialsMigration,
  '0020_deployed_manifests': deployedManifestsMigration,
  '0021_previews': previewsMigration,
};
