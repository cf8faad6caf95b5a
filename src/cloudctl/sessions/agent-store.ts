// Agents and the accounts they serve, as registered: who serves which account, and each account's
// reported status. The live view (who is connected now) is the registry; this is its durable record.
import type { Kysely, Selectable } from 'kysely';
import type { ChangeCounter } from '../store/index.ts';
import type { AccountsTable, SessionTables } from './session-tables.ts';

export interface AgentRegistration {
  agentId: string;
  version: string;
  zoneId: string;
  replicaCount: number;
  accounts: readonly AccountRegistration[];
}

export interface AccountRegistration {
  name: string;
  permissions: { read: string[]; write: string[] };
  apiServerHost: string;
  kubernetesVersion: string;
}

export type AccountState = 'UNKNOWN' | 'ACTIVE' | 'FAILED';

export interface StoredAccount extends AccountRegistration {
  agentId: string;
  status: string;
  statusMessage: string;
  updatedAt: Date;
}

export interface StoredAgent {
  id: string;
  version: string;
  zoneId: string;
  replicaCount: number;
  /** Whether a session of the agent was open when last recorded; the registry is the live truth. */
  connected: boolean;
  connectedAt: Date;
  lastHeartbeatAt: Date;
}

export class AgentStore {
  readonly #db: Kysely<SessionTables>;
  readonly #accountChanges: ChangeCounter;

  constructor(db: Kysely<SessionTables>, accountChanges: ChangeCounter) {
    this.#db = db;
    this.#accountChanges = accountChanges;
  }

  /**
   * A hello: records the agent as connected, makes it the owner of the static accounts it lists, and
   * forgets the accounts recorded as the agent's that the hello no longer lists (dropped from its
   * file, or renamed). `held` names the cloudctl accounts the hello lists: assigned ones stay. The
   * hello is the truth about the agent's own accounts. Answers the names it forgot.
   */
  async register(
    registration: AgentRegistration,
    now: Date,
    held: readonly string[] = [],
  ): Promise<string[]> {
    const dropped = await this.#db.transaction().execute(async (tx) => {
      const agent = {
        version: registration.version,
        zone_id: registration.zoneId,
        replica_count: registration.replicaCount,
        connected: true,
        connected_at: now,
        last_heartbeat_at: now,
      };
      await tx
        .insertInto('agents')
        .values({ id: registration.agentId, ...agent })
        .onConflict((oc) => oc.column('id').doUpdateSet(agent))
        .execute();
      const listed = [...registration.accounts.map((a) => a.name), ...held];
      let forget = tx.deleteFrom('accounts').where('agent_id', '=', registration.agentId);
      if (listed.length > 0) forget = forget.where('name', 'not in', listed);
      const forgotten = await forget.returning('name').execute();
      await upsertAccounts(tx, registration.agentId, registration.accounts, now);
      return forgotten.map((row) => row.name).sort();
    });
    this.#accountChanges.changed();
    return dropped;
  }

  /** Makes the agent the owner of these accounts too (an assignment); the others stay as they are. */
  async assign(agentId: string, accounts: readonly AccountRegistration[], now: Date): Promise<void> {
    await upsertAccounts(this.#db, agentId, accounts, now);
    this.#accountChanges.changed();
  }

  async heartbeat(agentId: string, now: Date): Promise<void> {
    await this.#db.updateTable('agents').set({ last_heartbeat_at: now }).where('id', '=', agentId).execute();
  }

  /** The agent's last session ended: it was last heard from now (what the idle retirement ages). */
  async disconnected(agentId: string, now: Date): Promise<void> {
    await this.#db
      .updateTable('agents')
      .set({ connected: false, last_heartbeat_at: now })
      .where('id', '=', agentId)
      .execute();
  }

  /** Records the status the agent reports; false when the account is not the agent's. */
  async setAccountStatus(
    agentId: string,
    account: string,
    state: AccountState,
    message: string,
    now: Date,
    cluster: { apiServerHost: string; kubernetesVersion: string } = {
      apiServerHost: '',
      kubernetesVersion: '',
    },
  ): Promise<boolean> {
    // The hello may have come before the account's cluster answered: an ACTIVE report says it.
    const reached =
      cluster.apiServerHost === ''
        ? {}
        : { api_server_host: cluster.apiServerHost, kubernetes_version: cluster.kubernetesVersion };
    const result = await this.#db
      .updateTable('accounts')
      .set({ status: state, status_message: message, updated_at: now, ...reached })
      .where('name', '=', account)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Names of the accounts the agent owns. */
  async accountsOf(agentId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('accounts')
      .select('name')
      .where('agent_id', '=', agentId)
      .orderBy('name')
      .execute();
    return rows.map((row) => row.name);
  }

  async account(name: string): Promise<StoredAccount | undefined> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : toStoredAccount(row);
  }

  /** Every agent that ever registered, by id. */
  async agents(): Promise<StoredAgent[]> {
    const rows = await this.#db.selectFrom('agents').selectAll().orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      version: row.version,
      zoneId: row.zone_id,
      replicaCount: row.replica_count,
      connected: row.connected,
      connectedAt: row.connected_at,
      lastHeartbeatAt: row.last_heartbeat_at,
    }));
  }

  /**
   * Forgets an agent and the accounts recorded as its own, in one step: what `DELETE /agents/{id}`
   * does for an agent that will not come back. Answers the account names forgotten, or undefined
   * when no agent of that id is recorded. An agent connecting later under the id registers anew.
   */
  async retire(agentId: string): Promise<string[] | undefined> {
    const forgotten = await this.#db.transaction().execute(async (tx) => {
      const accounts = await tx
        .deleteFrom('accounts')
        .where('agent_id', '=', agentId)
        .returning('name')
        .execute();
      const agent = await tx
        .deleteFrom('agents')
        .where('id', '=', agentId)
        .returning('id')
        .executeTakeFirst();
      return agent === undefined ? undefined : accounts.map((row) => row.name).sort();
    });
    if (forgotten !== undefined) this.#accountChanges.changed();
    return forgotten;
  }

  /** Every account an agent registered or was assigned, by name. */
  async accounts(): Promise<StoredAccount[]> {
    const rows = await this.#db.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map(toStoredAccount);
  }
}

async function upsertAccounts(
  db: Kysely<SessionTables>,
  agentId: string,
  accounts: readonly AccountRegistration[],
  now: Date,
): Promise<void> {
  for (const account of accounts) {
    const row = {
      agent_id: agentId,
      permissions: JSON.stringify(account.permissions),
      api_server_host: account.apiServerHost,
      kubernetes_version: account.kubernetesVersion,
      status: 'UNKNOWN',
      status_message: '',
      updated_at: now,
    };
    await db
      .insertInto('accounts')
      .values({ name: account.name, ...row })
      .onConflict((oc) => oc.column('name').doUpdateSet(row))
      .execute();
  }
}

function toStoredAccount(row: Selectable<AccountsTable>): StoredAccount {
  return {
    name: row.name,
    agentId: row.agent_id,
    permissions: parsePermissions(row.permissions),
    apiServerHost: row.api_server_host,
    kubernetesVersion: row.kubernetes_version,
    status: row.status,
    statusMessage: row.status_message,
    updatedAt: row.updated_at,
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function parsePermissions(value: unknown): { read: string[]; write: string[] } {
  if (typeof value !== 'object' || value === null) return { read: [], write: [] };
  return { read: stringList(Reflect.get(value, 'read')), write: stringList(Reflect.get(value, 'write')) };
}
