// The control plane's tables as Kysely sees them. Column names are the SQL ones (snake_case).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
/** jsonb: written as JSON text (both drivers pass it through), read back parsed. */
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;

export interface AgentsTable {
  id: string;
  version: string;
  zone_id: string;
  replica_count: number;
  connected: boolean;
  connected_at: Timestamp;
  last_heartbeat_at: Timestamp;
}

export interface AccountsTable {
  name: string;
  agent_id: string;
  /** {read: string[], write: string[]} */
  permissions: Json;
  api_server_host: string;
  kubernetes_version: string;
  /** UNKNOWN until the agent reports ACTIVE or FAILED. */
  status: string;
  status_message: string;
  updated_at: Timestamp;
}

export interface ResourcesTable {
  account: string;
  api_group: string;
  api_version: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string;
  body: Json;
  /** The snapshot that last carried this object; null when only watch events touched it since. */
  snapshot_id: string | null;
  updated_at: Timestamp;
}

export interface ResumeVersionsTable {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  resource_version: string;
  updated_at: Timestamp;
}

/** Relists begun and not yet ended, one per watch scope. */
export interface OpenSnapshotsTable {
  account: string;
  api_group: string;
  kind: string;
  namespace: string;
  snapshot_id: string;
  started_at: Timestamp;
}

export interface OperationsTable {
  id: string;
  account: string;
  agent_id: string;
  type: string;
  payload: Json;
  /** sent, then succeeded or failed; timed_out when nobody waits any more (a late result still lands). */
  state: string;
  result: NullableJson;
  error: string | null;
  created_at: Timestamp;
  deadline: Timestamp;
  reported_at: ColumnType<Date | null, Date | null, Date | null>;
}

export interface TasksTable {
  id: string;
  /** The client's clientRequestId: a retry with it finds this task instead of starting another. */
  request_id: string | null;
  user_name: string;
  /** string[] */
  accounts: Json;
  /** TaskStep[] (tasks/task-store.ts) */
  steps: Json;
  next_step: number;
  /** STARTED, COMPLETED or FAILED */
  state: string;
  history: Json;
  result_objects: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Accounts defined in cloudctl (credentials/): the current definition of each. */
export interface CredentialsTable {
  name: string;
  /** The definition's type discriminator: orchestrator. */
  type: string;
  definition: Json;
  /** {read: string[], write: string[]}, derived from the definition. */
  permissions: Json;
  /** The version of the newest revision. */
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every write of a credentials definition, deletes included; rows are only ever inserted. */
export interface CredentialRevisionsTable {
  name: string;
  version: number;
  deleted: boolean;
  /** Null for a delete. */
  definition: NullableJson;
  permissions: Json;
  created_at: Timestamp;
}

/** The read model's index (read-model/): what reads need of each cached object, derived at ingest. */
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

/** An account registered for migration to agents (POST /vendor/accounts) and its state. */
export interface DynamicAccountsTable {
  name: string;
  zone_id: string | null;
  /** A path or secret reference that replaces the definition's orchConfigFile; null: the definition's. */
  orch_config_file: string | null;
  state: string;
  last_assignment_msg: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A cloudctl-defined account held by an agent: sent on a session, caching or not, as reported. */
export interface DynamicAccountAgentsTable {
  account: string;
  agent_id: string;
  session_id: string;
  caching: boolean;
  /** SENT until the agent reports ACTIVE or FAILED. */
  status: string;
  message: string;
  updated_at: Timestamp;
}

/** OAuth client credentials (oauth/): the secret is known by its SHA-256 only. */
export interface OAuthClientsTable {
  client_id: string;
  name: string;
  secret_hash: string;
  role: string;
  created_by: string;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | null, Date | null>;
}

/** Access tokens issued to OAuth clients, known by their SHA-256 only. */
export interface OAuthTokensTable {
  token_hash: string;
  client_id: string;
  issued_at: Timestamp;
  expires_at: Timestamp;
}

export interface ReplicasTable {
  id: string;
  started_at: Timestamp;
  seen_at: Timestamp;
}

export interface ReplicaSessionsTable {
  session_id: string;
  replica_id: string;
  agent_id: string;
  connected_at: Timestamp;
  result_retry_window_ms: number;
  zone_id: string;
  dynamic_accounts: boolean;
  /** [{ name, static }]. */
  accounts: Json;
}

export interface LeasesTable {
  kind: string;
  key: string;
  owner: string;
  expires_at: Timestamp;
}

export interface DeploymentsTable {
  id: string;
  application: string;
  status: string;
  created_by: string;
  /** The accounts its targets deploy to, for permission checks on reads. */
  accounts: Json;
  plan: Json;
  progress: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DeploymentGatesTable {
  id: string;
  deployment_id: string;
  step_key: string;
  kind: string;
  verdict: boolean | null;
  message: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Timestamp;
}

export interface CloudctlDatabase {
  agents: AgentsTable;
  accounts: AccountsTable;
  resources: ResourcesTable;
  resume_versions: ResumeVersionsTable;
  open_snapshots: OpenSnapshotsTable;
  operations: OperationsTable;
  tasks: TasksTable;
  credentials: CredentialsTable;
  credential_revisions: CredentialRevisionsTable;
  read_objects: ReadObjectsTable;
  dynamic_accounts: DynamicAccountsTable;
  dynamic_account_agents: DynamicAccountAgentsTable;
  oauth_clients: OAuthClientsTable;
  oauth_tokens: OAuthTokensTable;
  replicas: ReplicasTable;
  replica_sessions: ReplicaSessionsTable;
  leases: LeasesTable;
  deployments: DeploymentsTable;
  deployment_gates: DeploymentGatesTable;
}
