// Dynamic accounts as stored: registrations with their state, and who holds each account now. The
// holders are written when an account is sent and rewritten by the agent's reports, so the account
// record (agents[], caching) reads what cloudctl last told and heard from each agent.
import type { Kysely, Selectable } from 'kysely';
import { type AccountState, accountStateSchema } from './account-state.ts';
import type {
  DynamicAccountAgentsTable,
  DynamicAccountsTable,
  DynamicAccountTables,
} from './dynamic-account-tables.ts';

export interface Registration {
  name: string;
  zoneId: string | null;
  orchConfigFile: string | null;
  state: AccountState;
  lastAssignmentMsg: string;
  updatedAt: Date;
}

/** SENT until the agent reports; REFUSED holders are not kept (the agent holds nothing). */
export type HolderStatus = 'SENT' | 'ACTIVE' | 'FAILED';

export interface Holder {
  account: string;
  agentId: string;
  sessionId: string;
  caching: boolean;
  status: HolderStatus;
  message: string;
  /** The cluster the agent reported reaching with ACTIVE (API server host:port, its version). */
  apiServerHost?: string;
  kubernetesVersion?: string;
}

function toRegistration(row: Selectable<DynamicAccountsTable>): Registration {
  return {
    name: row.name,
    zoneId: row.zone_id,
    orchConfigFile: row.orch_config_file,
    state: accountStateSchema.parse(row.state),
    lastAssignmentMsg: row.last_assignment_msg,
    updatedAt: row.updated_at,
  };
}

function toHolder(row: Selectable<DynamicAccountAgentsTable>): Holder {
  const status = row.status === 'ACTIVE' || row.status === 'FAILED' ? row.status : 'SENT';
  return {
    account: row.account,
    agentId: row.agent_id,
    sessionId: row.session_id,
    caching: row.caching,
    status,
    message: row.message,
    apiServerHost: row.api_server_host,
    kubernetesVersion: row.kubernetes_version,
  };
}

export class DynamicAccountStore {
  readonly #db: Kysely<DynamicAccountTables>;

  constructor(db: Kysely<DynamicAccountTables>) {
    this.#db = db;
  }

  async registration(name: string): Promise<Registration | undefined> {
    const row = await this.#db
      .selectFrom('dynamic_accounts')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row === undefined ? undefined : toRegistration(row);
  }

  async registrations(): Promise<Registration[]> {
    const rows = await this.#db.selectFrom('dynamic_accounts').selectAll().orderBy('name').execute();
    return rows.map(toRegistration);
  }

  /** Creates or replaces a registration's zone and configuration, keeping its state when it has one. */
  async register(
    entry: { name: string; zoneId: string | null; orchConfigFile: string | null },
    now: Date,
  ): Promise<void> {
    await this.#db
      .insertInto('dynamic_accounts')
      .values({
        name: entry.name,
        zone_id: entry.zoneId,
        orch_config_file: entry.orchConfigFile,
        state: 'INACTIVE',
        last_assignment_msg: '',
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({
          zone_id: entry.zoneId,
          orch_config_file: entry.orchConfigFile,
          updated_at: now,
        }),
      )
      .execute();
  }

  /** Sets the state, and the message when one is given. */
  async setState(name: string, state: AccountState, message: string | undefined, now: Date): Promise<void> {
    await this.#db
      .updateTable('dynamic_accounts')
      .set({ state, updated_at: now, ...(message === undefined ? {} : { last_assignment_msg: message }) })
      .where('name', '=', name)
      .execute();
  }

  async setMessage(name: string, message: string, now: Date): Promise<void> {
    await this.#db
      .updateTable('dynamic_accounts')
      .set({ last_assignment_msg: message, updated_at: now })
      .where('name', '=', name)
      .execute();
  }

  async forget(name: string): Promise<void> {
    await this.#db.deleteFrom('dynamic_accounts').where('name', '=', name).execute();
  }

  async holders(account?: string): Promise<Holder[]> {
    let query = this.#db.selectFrom('dynamic_account_agents').selectAll();
    if (account !== undefined) query = query.where('account', '=', account);
    const rows = await query.orderBy('account').orderBy('agent_id').execute();
    return rows.map(toHolder);
  }

  /** Names of the cloudctl accounts the agent holds: it may stream and query them. */
  async accountsHeldBy(agentId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('dynamic_account_agents')
      .select('account')
      .where('agent_id', '=', agentId)
      .execute();
    return rows.map((row) => row.account);
  }

  async putHolder(holder: Holder, now: Date): Promise<void> {
    const row = {
      session_id: holder.sessionId,
      caching: holder.caching,
      status: holder.status,
      message: holder.message,
      api_server_host: holder.apiServerHost ?? '',
      kubernetes_version: holder.kubernetesVersion ?? '',
      updated_at: now,
    };
    await this.#db
      .insertInto('dynamic_account_agents')
      .values({ account: holder.account, agent_id: holder.agentId, ...row })
      .onConflict((oc) => oc.columns(['account', 'agent_id']).doUpdateSet(row))
      .execute();
  }

  async dropHolder(account: string, agentId: string): Promise<void> {
    await this.#db
      .deleteFrom('dynamic_account_agents')
      .where('account', '=', account)
      .where('agent_id', '=', agentId)
      .execute();
  }

  /** Forgets what a session held, once it ended; answers the accounts it held. */
  async dropSession(sessionId: string): Promise<string[]> {
    const rows = await this.#db
      .deleteFrom('dynamic_account_agents')
      .where('session_id', '=', sessionId)
      .returning('account')
      .execute();
    return rows.map((row) => row.account);
  }

  /** Forgets holders whose sessions are not among `live` (a restart ended every session). */
  async dropSessionsOtherThan(live: readonly string[]): Promise<void> {
    let query = this.#db.deleteFrom('dynamic_account_agents');
    if (live.length > 0) query = query.where('session_id', 'not in', live);
    await query.execute();
  }
}
