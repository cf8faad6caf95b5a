// The stores as one handle: each feature's record keeper over one database, and closing it. Built
// beside the composition root, the one place that knows every feature; each feature is handed only
// the stores it uses.
import type { Kysely } from 'kysely';
import { CacheStore, KindResolver } from './caching/index.ts';
import { CredentialStore } from './credentials/index.ts';
import { DeploymentStore } from './deployments/index.ts';
import { DeployedManifestStore } from './drift/index.ts';
import { DynamicAccountStore } from './dynamic-accounts/index.ts';
import type { Feature } from './feature.ts';
import { CLOUDCTL_MIGRATIONS, type CloudctlDatabase } from './migrations.ts';
import { OAuthStore } from './oauth/index.ts';
import { OperationStore } from './operations/index.ts';
import { PlanStore } from './plans/index.ts';
import { PreviewStore } from './previews/index.ts';
import { ReadIndex, ReadModel } from './read-model/index.ts';
import {
  type LeaseSource,
  LeaseStore,
  ProcessLeaseStore,
  REPLICA_LEASE_MS,
  ReplicaStore,
} from './replicas/index.ts';
import { AgentStore } from './sessions/index.ts';
import {
  ChangeCounter,
  type DatabaseTarget,
  defaultTemplateFolder,
  isSingleSession,
  openDatabase,
  pingDatabase,
  WatchSignal,
} from './store/index.ts';
import { TaskStore } from './tasks/index.ts';
import { WatchStore } from './watch/index.ts';

export interface CloudctlStores {
  agents: AgentStore;
  /** Counts this process's writes of accounts (agents' registrations and cloudctl's credentials). */
  accountChanges: ChangeCounter;
  cache: CacheStore;
  credentials: CredentialStore;
  /** Deployments, their progress, and the approvals and callbacks they wait for. */
  deployments: DeploymentStore;
  /** What cloudctl last deployed of each object (tasks record it, re-apply reads it). */
  deployed: DeployedManifestStore;
  /** Accounts registered for migration to agents, and which agents hold them. */
  dynamicAccounts: DynamicAccountStore;
  /** OAuth client credentials and the access tokens issued to them. */
  oauth: OAuthStore;
  operations: OperationStore;
  /** Plans (POST /plans), until applied or expired. */
  plans: PlanStore;
  /** Preview URLs of deployments' exposeServices steps. */
  previews: PreviewStore;
  /** The read model: applications, clusters, server groups, ... from the index kept at ingest. */
  readModel: ReadModel;
  /** cloudctl replicas sharing a PostgreSQL, and the agent sessions each holds. */
  replicas: ReplicaStore;
  /**
   * Leases on work one replica carries at a time (tasks, deployment runs, webhook waits): in the
   * database on PostgreSQL, in this process on the embedded database, which no other process opens.
   */
  leases: LeaseSource;
  tasks: TaskStore;
  kinds: KindResolver;
  /** The watch sequence's reads (GET /watch). */
  watch: WatchStore;
  /** Said by the stores after each commit of rows a watch streams. */
  watchSignal: WatchSignal;
  /**
   * The database is embedded (PGlite): one session, which only this process opens, so every write
   * to it is this process's.
   */
  embedded: boolean;
  /** Resolves once the database answers a query; for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The database with every feature's migrations run. A fresh embedded one starts from the PGlite
 * template in this user's temp folder, made by the first (pglite-template.ts).
 */
export function openCloudctlDatabase(target: DatabaseTarget): Promise<Kysely<CloudctlDatabase>> {
  return openDatabase<CloudctlDatabase>(target, CLOUDCTL_MIGRATIONS, {
    pgliteTemplates: defaultTemplateFolder(),
  });
}

export async function openStores(
  target: DatabaseTarget,
  options: { readIndex: boolean } = { readIndex: true },
): Promise<CloudctlStores> {
  const db = await openCloudctlDatabase(target);
  const accountChanges = new ChangeCounter();
  const embedded = isSingleSession(db);
  const watchSignal = new WatchSignal();
  return {
    agents: new AgentStore(db, accountChanges),
    accountChanges,
    cache: new CacheStore(db, options.readIndex ? new ReadIndex() : undefined, watchSignal),
    credentials: new CredentialStore(db, accountChanges),
    deployments: new DeploymentStore(db, watchSignal),
    deployed: new DeployedManifestStore(db),
    dynamicAccounts: new DynamicAccountStore(db),
    oauth: new OAuthStore(db),
    operations: new OperationStore(db),
    plans: new PlanStore(db),
    previews: new PreviewStore(db),
    readModel: new ReadModel(db),
    replicas: new ReplicaStore(db, REPLICA_LEASE_MS),
    leases: embedded ? new ProcessLeaseStore() : new LeaseStore(db),
    tasks: new TaskStore(db, watchSignal),
    kinds: new KindResolver(db),
    watch: new WatchStore(db),
    watchSignal,
    embedded,
    ping: () => pingDatabase(db),
    close: () => db.destroy(),
  };
}

/** The stores as the lowest feature: opened before the others are built (they all use them), closed last. */
export function storesFeature(stores: Pick<CloudctlStores, 'close'>): Feature {
  return { name: 'stores', phase: 'store', close: () => stores.close() };
}
