// The operations table: each operation sent to an agent, its deadline and its result, so a result
// that lands after a restart (or at another replica) still finds its operation. Its row type, its
// part of the first migration (0001_initial), and 0013, which keeps a failure's code and path apart
// from its message.
import type { Kysely, Migration } from 'kysely';
import type { Json, NullableJson, NullableTimestamp, Timestamp } from '../store/index.ts';

export interface OperationsTable {
  id: string;
  account: string;
  agent_id: string;
  type: string;
  payload: Json;
  /** sent, then succeeded or failed; timed_out when nobody waits any more (a late result still lands). */
  state: string;
  result: NullableJson;
  /** A failure's message. */
  error: string | null;
  /** A failure's code (src/contract/operation-errors.ts); null before 0013 and for successes. */
  error_code: string | null;
  /** The offending field of a failure, when there is one. */
  error_path: string | null;
  created_at: Timestamp;
  deadline: Timestamp;
  reported_at: NullableTimestamp;
}

export interface OperationTables {
  operations: OperationsTable;
}

/** 0001_initial, last part: shipped; never edit it. */
export async function createOperationTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('result', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deadline', 'timestamptz', (c) => c.notNull())
    .addColumn('reported_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('operations_account_idx').on('operations').column('account').execute();
}

/**
 * 0013: a failure's code and path as columns of their own, as the agent now reports them. A failure
 * stored before it keeps its `CODE: message` text in `error` and reads as FAILED.
 */
export const operationErrorCodeMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('operations')
      .addColumn('error_code', 'text')
      .addColumn('error_path', 'text')
      .execute();
  },
};
