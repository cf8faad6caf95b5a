// The replicas' shared record: which replicas are alive (each beats) and which agent sessions each
// holds. Times are the database's own clock, so replicas on hosts whose clocks differ agree on who
// is alive.
import { type Kysely, sql } from 'kysely';
import type { ReplicaTables } from './replica-tables.ts';

/**
 * How long a replica counts as alive after its last beat: a killed replica's sessions and leases are
 * taken over after at most this long. Replicas beat every REPLICA_BEAT_MS.
 */
export const REPLICA_LEASE_MS = 10_000;
export const REPLICA_BEAT_MS = 2_000;

export interface PublishedSession {
  sessionId: string;
  agentId: string;
  connectedAt: Date;
  resultRetryWindowMs: number;
  zoneId: string;
  takesDynamicAccounts: boolean;
  accounts: ReadonlyArray<{ name: string; static: boolean }>;
}

export interface SessionHolder extends PublishedSession {
  replicaId: string;
}

export class ReplicaStore {
  readonly #db: Kysely<ReplicaTables>;
  readonly #leaseMs: number;

  constructor(db: Kysely<ReplicaTables>, leaseMs: number) {
    this.#db = db;
    this.#leaseMs = leaseMs;
  }

  /** NOTIFY on the channel: listening replicas hear it once this statement commits. */
  async notify(channel: string, payload: string): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(this.#db);
  }

  /** Records that the replica is alive now. */
  async beat(replicaId: string): Promise<void> {
    await this.#db
      .insertInto('replicas')
      .values({ id: replicaId, started_at: sql<Date>`now()`, seen_at: sql<Date>`now()` })
      .onConflict((oc) => oc.column('id').doUpdateSet({ seen_at: sql<Date>`now()` }))
      .execute();
  }

  /** Replaces what the replica holds with `sessions`, in one transaction. */
  async publish(replicaId: string, sessions: readonly PublishedSession[]): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx.deleteFrom('replica_sessions').where('replica_id', '=', replicaId).execute();
      if (sessions.length === 0) return;
      await tx
        .insertInto('replica_sessions')
        .values(
          sessions.map((session) => ({
            session_id: session.sessionId,
            replica_id: replicaId,
            agent_id: session.agentId,
            connected_at: session.connectedAt,
            result_retry_window_ms: session.resultRetryWindowMs,
            zone_id: session.zoneId,
            dynamic_accounts: session.takesDynamicAccounts,
            accounts: JSON.stringify(session.accounts),
          })),
        )
        .onConflict((oc) =>
          // A session id is a random UUID: a conflict is the same session published again.
          oc.column('session_id').doUpdateSet((eb) => ({
            replica_id: eb.ref('excluded.replica_id'),
            accounts: eb.ref('excluded.accounts'),
          })),
        )
        .execute();
    });
  }

  /** A replica that stops cleanly says so, so no one routes to it until its lease would run out. */
  async leave(replicaId: string): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx.deleteFrom('replica_sessions').where('replica_id', '=', replicaId).execute();
      await tx.deleteFrom('replicas').where('id', '=', replicaId).execute();
    });
  }

  /** Sessions held by live replicas other than `except` that serve the account. */
  async holdersOf(account: string, except: string): Promise<SessionHolder[]> {
    const rows = await this.#live()
      .where('rs.replica_id', '!=', except)
      .where(sql<boolean>`rs.accounts @> ${JSON.stringify([{ name: account }])}::jsonb`)
      .execute();
    return rows.map(toHolder);
  }

  /** Whether a live replica other than `except` holds a session of the agent. */
  async agentConnected(agentId: string, except: string): Promise<boolean> {
    const row = await this.#live()
      .where('rs.agent_id', '=', agentId)
      .where('rs.replica_id', '!=', except)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Every session held by a live replica (this one included, as last published). */
  async liveSessionIds(): Promise<string[]> {
    const rows = await this.#live().execute();
    return rows.map((row) => row.session_id);
  }

  /** Sessions held by live replicas other than `except`. */
  async sessionIdsElsewhere(except: string): Promise<Set<string>> {
    const rows = await this.#live().where('rs.replica_id', '!=', except).execute();
    return new Set(rows.map((row) => row.session_id));
  }

  /** Whether an agent connected to a live replica other than `except` takes dynamic accounts in the zone. */
  async dynamicAgentIn(zoneId: string | null, except: string): Promise<boolean> {
    let query = this.#live().where('rs.replica_id', '!=', except).where('rs.dynamic_accounts', '=', true);
    if (zoneId !== null) query = query.where('rs.zone_id', '=', zoneId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  #live() {
    return this.#db
      .selectFrom('replica_sessions as rs')
      .innerJoin('replicas as r', 'r.id', 'rs.replica_id')
      .selectAll('rs')
      .where(sql<boolean>`r.seen_at > now() - make_interval(secs => ${this.#leaseMs / 1000})`);
  }
}

function toHolder(row: {
  session_id: string;
  replica_id: string;
  agent_id: string;
  connected_at: Date;
  result_retry_window_ms: number;
  zone_id: string;
  dynamic_accounts: boolean;
  accounts: unknown;
}): SessionHolder {
  const accounts = (typeof row.accounts === 'string' ? JSON.parse(row.accounts) : row.accounts) as Array<{
    name: string;
    static: boolean;
  }>;
  return {
    sessionId: row.session_id,
    replicaId: row.replica_id,
    agentId: row.agent_id,
    connectedAt: row.connected_at,
    resultRetryWindowMs: row.result_retry_window_ms,
    zoneId: row.zone_id,
    takesDynamicAccounts: row.dynamic_accounts,
    accounts,
  };
}
