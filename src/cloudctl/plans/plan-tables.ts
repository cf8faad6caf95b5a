// The plans table: a plan kept until it is applied or expires, readable by every replica and after a
// restart. It holds the task steps exactly as they would run (Secret values included, as a task's
// steps are: they are never answered, only run), what the plan found (the operations of the record,
// each object's resourceVersion among them), who made it and until when it may be applied, and once
// applied, by whom and as what. Its row type and its migration (0017_plans).
import type { Kysely, Migration } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../store/index.ts';

export interface PlansTable {
  id: string;
  /** A client's clientRequestId: a retry of POST /plans with it finds this plan. */
  request_id: string | null;
  /** `operations` (POST /plans) or `deployment`. */
  source: string;
  created_by: string;
  /** string[] */
  accounts: Json;
  /** TaskStep[] with operationId null (tasks/task-store.ts), without `expect`: what apply runs. */
  steps: Json;
  /** PlannedOperation[] (plan-record.ts), one per step. */
  operations: Json;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Set once, by the apply that wins (a conditional update): a plan is applied at most once. */
  applied_by: string | null;
  applied_at: NullableTimestamp;
  /** The task (or deployment) the apply started; null while it is being started. */
  applied_id: string | null;
  applied_uri: string | null;
}

export interface PlanTables {
  plans: PlansTable;
}

export const plansMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('plans')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('request_id', 'text', (c) => c.unique())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('accounts', 'jsonb', (c) => c.notNull())
      .addColumn('steps', 'jsonb', (c) => c.notNull())
      .addColumn('operations', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('applied_by', 'text')
      .addColumn('applied_at', 'timestamptz')
      .addColumn('applied_id', 'text')
      .addColumn('applied_uri', 'text')
      .execute();
  },
};
