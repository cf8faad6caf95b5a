// Operations sent to agents and their results. A result is recorded once per operation id: a
// redelivered result (the agent retries until it hears back) finds it there and changes nothing.
import type { Kysely, Selectable } from 'kysely';
import {
  type OperationCall,
  type OperationFailure,
  operationCallSchema,
  operationErrorCode,
} from '../../contract/index.ts';
import type { OperationsTable, OperationTables } from './operation-tables.ts';

export interface NewOperation {
  id: string;
  account: string;
  agentId: string;
  type: string;
  /** JSON text. */
  payload: string;
  deadline: Date;
}

export interface ReportedResult {
  id: string;
  outcome: 'succeeded' | 'failed';
  /** JSON text, or null when the handler returned nothing. */
  result: string | null;
  error: OperationFailure | null;
}

export type RecordOutcome = 'recorded' | 'duplicate' | 'unknown';

export interface StoredOperation {
  id: string;
  account: string;
  agentId: string;
  /** The operation type as stored (shown as it is, also when `call` is null). */
  type: string;
  /**
   * The operation as sent, checked against the contract when read; null when its stored payload no
   * longer matches its type (written by another version of cloudctl): it cannot be sent again.
   */
  call: OperationCall | null;
  state: string;
  result: unknown;
  /** Why it failed; null unless `state` is failed. */
  error: OperationFailure | null;
  createdAt: Date;
  deadline: Date;
  reportedAt: Date | null;
}

export class OperationStore {
  readonly #db: Kysely<OperationTables>;

  constructor(db: Kysely<OperationTables>) {
    this.#db = db;
  }

  async create(operation: NewOperation, now: Date): Promise<void> {
    await this.#db
      .insertInto('operations')
      .values({
        id: operation.id,
        account: operation.account,
        agent_id: operation.agentId,
        type: operation.type,
        payload: operation.payload,
        state: 'sent',
        result: null,
        error: null,
        error_code: null,
        error_path: null,
        created_at: now,
        deadline: operation.deadline,
        reported_at: null,
      })
      .execute();
  }

  /** Records the first result for the id; a later one is a duplicate. The reporting agent must own it. */
  async recordResult(agentId: string, reported: ReportedResult, now: Date): Promise<RecordOutcome> {
    const updated = await this.#db
      .updateTable('operations')
      .set({
        state: reported.outcome,
        result: reported.result,
        error: reported.error?.message ?? null,
        error_code: reported.error?.code ?? null,
        error_path: reported.error?.path ?? null,
        reported_at: now,
      })
      .where('id', '=', reported.id)
      .where('agent_id', '=', agentId)
      .where('reported_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return 'recorded';
    const existing = await this.#db
      .selectFrom('operations')
      .select('id')
      .where('id', '=', reported.id)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return existing === undefined ? 'unknown' : 'duplicate';
  }

  /**
   * Hands an unreported operation to the agent that will be sent it again (the one that took it may
   * be gone), so that agent's report is the one recorded. False when a result came in meanwhile.
   */
  async reassign(id: string, agentId: string): Promise<boolean> {
    const updated = await this.#db
      .updateTable('operations')
      .set({ agent_id: agentId })
      .where('id', '=', id)
      .where('reported_at', 'is', null)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /**
   * Opens an unreported operation again for a new attempt under its id (a task restarted after its
   * wait timed out): a new deadline, and the agent that will be sent it. False when a result came in
   * meanwhile.
   */
  async reopen(id: string, agentId: string, deadline: Date): Promise<boolean> {
    const updated = await this.#db
      .updateTable('operations')
      .set({ agent_id: agentId, deadline, state: 'sent' })
      .where('id', '=', id)
      .where('reported_at', 'is', null)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Marks an operation nobody waits for any more, unless its result came in meanwhile. */
  async markTimedOut(id: string): Promise<void> {
    await this.#db
      .updateTable('operations')
      .set({ state: 'timed_out' })
      .where('id', '=', id)
      .where('reported_at', 'is', null)
      .execute();
  }

  async get(id: string): Promise<StoredOperation | undefined> {
    const row = await this.#db.selectFrom('operations').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toStoredOperation(row);
  }

  /**
   * The newest operations first; with `accounts`, only operations on those accounts (the ones a user
   * may read), filtered by the database so a page of others never hides the user's own.
   */
  async recent(limit: number, accounts?: readonly string[]): Promise<StoredOperation[]> {
    if (accounts !== undefined && accounts.length === 0) return [];
    let query = this.#db.selectFrom('operations').selectAll();
    if (accounts !== undefined) query = query.where('account', 'in', accounts);
    const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
    return rows.map(toStoredOperation);
  }
}

function toStoredOperation(row: Selectable<OperationsTable>): StoredOperation {
  return {
    id: row.id,
    account: row.account,
    agentId: row.agent_id,
    type: row.type,
    call: storedCall(row),
    state: row.state,
    result: row.result,
    error: storedFailure(row),
    createdAt: row.created_at,
    deadline: row.deadline,
    reportedAt: row.reported_at,
  };
}

function storedCall(row: Selectable<OperationsTable>): OperationCall | null {
  const call = operationCallSchema.safeParse({ type: row.type, payload: row.payload });
  return call.success ? call.data : null;
}

function storedFailure(row: Selectable<OperationsTable>): OperationFailure | null {
  if (row.error === null && row.error_code === null) return null;
  return {
    code: operationErrorCode(row.error_code ?? ''),
    message: row.error ?? '',
    ...(row.error_path === null ? {} : { path: row.error_path }),
  };
}
