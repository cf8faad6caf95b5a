// Plans as stored (plan-tables.ts): written once when planned, read by id, and applied at most once.
// The apply is claimed by a conditional update (only a plan nobody applied yet is taken), so two
// applies at once, on one replica or two, cannot both start work: the one that loses is told who won.
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { type TaskStep, taskStepSchema } from '../tasks/index.ts';
import { type PlannedOperation, plannedOperationSchema } from './plan-record.ts';
import type { PlansTable, PlanTables } from './plan-tables.ts';

export const PLAN_SOURCES = ['operations', 'deployment'] as const;
export type PlanSource = (typeof PLAN_SOURCES)[number];

/** Who applied a plan and when; `id`/`resourceUri` are null while the work it starts is being made. */
export interface PlanApplication {
  by: string;
  at: Date;
  id: string | null;
  resourceUri: string | null;
}

export interface StoredPlan {
  id: string;
  requestId: string | null;
  source: PlanSource;
  createdBy: string;
  accounts: string[];
  steps: TaskStep[];
  operations: PlannedOperation[];
  createdAt: Date;
  expiresAt: Date;
  applied: PlanApplication | undefined;
}

const stored = {
  source: z.enum(PLAN_SOURCES),
  accounts: z.array(z.string()),
  steps: z.array(taskStepSchema),
  operations: z.array(plannedOperationSchema),
};

function toPlan(row: Selectable<PlansTable>): StoredPlan {
  return {
    id: row.id,
    requestId: row.request_id,
    source: stored.source.parse(row.source),
    createdBy: row.created_by,
    accounts: stored.accounts.parse(row.accounts),
    steps: stored.steps.parse(row.steps),
    operations: stored.operations.parse(row.operations),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    applied:
      row.applied_by === null || row.applied_at === null
        ? undefined
        : { by: row.applied_by, at: row.applied_at, id: row.applied_id, resourceUri: row.applied_uri },
  };
}

export class PlanStore {
  readonly #db: Kysely<PlanTables>;

  constructor(db: Kysely<PlanTables>) {
    this.#db = db;
  }

  /**
   * Stores a new plan; when its request id is taken already (a client's retry), stores nothing and
   * answers the plan that holds it.
   */
  async create(plan: StoredPlan): Promise<StoredPlan> {
    const inserted = await this.#db
      .insertInto('plans')
      .values({
        id: plan.id,
        request_id: plan.requestId,
        source: plan.source,
        created_by: plan.createdBy,
        accounts: JSON.stringify(plan.accounts),
        steps: JSON.stringify(plan.steps),
        operations: JSON.stringify(plan.operations),
        created_at: plan.createdAt,
        expires_at: plan.expiresAt,
        applied_by: null,
        applied_at: null,
        applied_id: null,
        applied_uri: null,
      })
      .onConflict((oc) => oc.column('request_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted !== undefined || plan.requestId === null) return plan;
    const existing = await this.byRequestId(plan.requestId);
    if (existing === undefined) throw new Error(`plan with request id ${plan.requestId} vanished`);
    return existing;
  }

  async get(id: string): Promise<StoredPlan | undefined> {
    const row = await this.#db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toPlan(row);
  }

  async byRequestId(requestId: string): Promise<StoredPlan | undefined> {
    const row = await this.#db
      .selectFrom('plans')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row === undefined ? undefined : toPlan(row);
  }

  /** Takes the plan's one apply for `by`: false, changing nothing, when it was applied (or taken) already. */
  async claim(id: string, by: string, at: Date): Promise<boolean> {
    const updated = await this.#db
      .updateTable('plans')
      .set({ applied_by: by, applied_at: at })
      .where('id', '=', id)
      .where('applied_at', 'is', null)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Records what the claimed apply started. */
  async started(id: string, work: { id: string; resourceUri: string }): Promise<void> {
    await this.#db
      .updateTable('plans')
      .set({ applied_id: work.id, applied_uri: work.resourceUri })
      .where('id', '=', id)
      .execute();
  }

  /** Gives a claimed apply back when the work could not be started, so the plan may be applied again. */
  async unclaim(id: string): Promise<void> {
    await this.#db
      .updateTable('plans')
      .set({ applied_by: null, applied_at: null, applied_id: null, applied_uri: null })
      .where('id', '=', id)
      .where('applied_id', 'is', null)
      .execute();
  }
}
