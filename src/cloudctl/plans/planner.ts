// Plans: what a list of task steps would do, found by the agents' dry runs and kept, and the one
// guarded apply of exactly those steps. Making a plan writes nothing to any cluster: each write step
// goes to its account's agent as a `plan` operation (a read), and the answer, the steps and each
// object's resourceVersion are stored. Applying checks, in order: the plan was not applied (409 naming
// what its apply started), it has not expired (410), no planned object moved (409 naming each, asked of
// the agents); then it claims the plan (a conditional update: of two applies at once one wins, the
// other is the 409) and starts the work with every write carrying the versions it expects. A plan of
// operations (POST /plans) runs as a task; a plan of another source is handed to the applier that
// source registered (the deployment service starts a deployment), so this feature imports none of them.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type OperationCall, PLANNABLE_TYPES } from '../../contract/index.ts';
import { HttpError } from '../http/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import type { TaskRunner, TaskStep } from '../tasks/index.ts';
import { movedSincePlanned, stepExpectations, withExpect } from './plan-preconditions.ts';
import type { PlannedOperation, PlanRecord } from './plan-record.ts';
import type { PlanSource, PlanStore, StoredPlan } from './plan-store.ts';
import { objectKey, plannedOperation, planSummary, unplannedOperation } from './planned-operation.ts';

/**
 * One step to plan: an agent operation on an account, named and described as a task step is (the
 * deployment service's steps have no client payload or phase of their own).
 */
export type PlanStep = OperationCall & {
  account: string;
  /** The operation name the client sent (`deployManifest`), or the deployment's step. */
  name: string;
  description: string;
  /** The task history phase; the name when absent. */
  phase?: string;
  /** The client's payload as parsed, kept with the step for the task's result object. */
  input?: unknown;
  /** What converting found (a deploy's bound artifacts). */
  details?: unknown;
  /** Ignored: an applied plan's steps are sent as new operations. */
  operationId?: string | null;
};

export interface PlanRequest {
  source: PlanSource;
  /** Who makes the plan (recorded as `createdBy`); its access is checked by the caller. */
  user: string;
  steps: readonly PlanStep[];
  /** How long it may be applied: the configured time when absent, and never longer. */
  expireAfterMs?: number;
  /** A client's clientRequestId: a retry gets the plan made the first time. */
  requestId?: string;
}

/** What an apply started: a task, or what a source's applier started (a deployment). */
export interface AppliedWork {
  id: string;
  resourceUri: string;
}

/** A plan handed to its source's applier once every guard passed, its steps carrying `expect`. */
export interface ApplicablePlan {
  record: PlanRecord;
  steps: TaskStep[];
  /** Who applies it. */
  by: string;
}

export type PlanApplier = (plan: ApplicablePlan) => Promise<AppliedWork>;

export interface PlannerDeps {
  store: PlanStore;
  agents: AgentOperations;
  runner: Pick<TaskRunner, 'submit'>;
  logger: Logger;
  now: () => Date;
  /** How long a plan may be applied when its request says nothing (`plans.expireAfterSeconds`). */
  expireAfterMs: number;
  newId?: () => string;
}

function plannable(step: TaskStep) {
  return PLANNABLE_TYPES.find((type) => type === step.type);
}

function asTaskStep({ phase, input, operationId: _none, ...step }: PlanStep): TaskStep {
  return { ...step, phase: phase ?? step.name, input, operationId: null };
}

export class Planner {
  readonly #deps: PlannerDeps;
  readonly #appliers = new Map<PlanSource, PlanApplier>();

  constructor(deps: PlannerDeps) {
    this.#deps = deps;
  }

  /** What applies plans of `source` (other than `operations`, which run as tasks). */
  registerApplier(source: Exclude<PlanSource, 'operations'>, applier: PlanApplier): void {
    this.#appliers.set(source, applier);
  }

  /** Plans the steps (each write dry-run by its account's agent) and stores the plan; throws 502/503. */
  async plan(request: PlanRequest): Promise<PlanRecord> {
    const { store, now } = this.#deps;
    const steps = request.steps.map(asTaskStep);
    const operations: PlannedOperation[] = [];
    const touched = new Set<string>();
    for (const step of steps) {
      const operation = await this.#planStep(step, touched);
      for (const object of operation.objects) touched.add(objectKey(operation.account, object));
      operations.push(operation);
    }
    const createdAt = now();
    const plan = await store.create({
      id: (this.#deps.newId ?? randomUUID)(),
      requestId: request.requestId ?? null,
      source: request.source,
      createdBy: request.user,
      accounts: [...new Set(steps.map((s) => s.account))],
      steps,
      operations,
      createdAt,
      expiresAt: new Date(
        createdAt.getTime() + Math.min(request.expireAfterMs ?? Infinity, this.#deps.expireAfterMs),
      ),
      applied: undefined,
    });
    this.#deps.logger.info(
      { planId: plan.id, source: plan.source, user: request.user, steps: steps.length },
      'plan made',
    );
    return this.#record(plan);
  }

  async #planStep(step: TaskStep, touched: ReadonlySet<string>): Promise<PlannedOperation> {
    const type = plannable(step);
    if (type === undefined) return unplannedOperation(step);
    const result = await askAgent(
      this.#deps.agents,
      { account: step.account, type: 'plan', payload: { operation: { type, payload: step.payload } } },
      `plan ${step.name} on account ${step.account}`,
    );
    return plannedOperation(step, result, touched);
  }

  /** The plan as the API answers it; undefined when there is none. */
  async get(id: string): Promise<PlanRecord | undefined> {
    const plan = await this.#deps.store.get(id);
    return plan === undefined ? undefined : this.#record(plan);
  }

  /**
   * Applies the plan as `by`, once every guard passes (see the header); the caller checked WRITE on
   * its accounts. Throws 404, 409 (applied already; objects moved), 410 (expired), 502/503 (an agent).
   */
  async apply(id: string, by: string): Promise<AppliedWork> {
    const { store, now, logger } = this.#deps;
    const plan = await store.get(id);
    if (plan === undefined) throw new HttpError('NOT_FOUND', `no plan ${id}`);
    if (plan.applied !== undefined) throw appliedAlready(plan);
    if (plan.expiresAt.getTime() <= now().getTime()) {
      throw new HttpError('GONE', `plan ${id} expired at ${plan.expiresAt.toISOString()}; make a new plan`);
    }
    const applier = plan.source === 'operations' ? undefined : this.#appliers.get(plan.source);
    if (plan.source !== 'operations' && applier === undefined) {
      throw new HttpError('CONFLICT', `plans of ${plan.source} cannot be applied here: nothing applies them`);
    }
    const moved = await movedSincePlanned(plan.operations, this.#deps.agents);
    if (moved.length > 0) {
      throw new HttpError(
        'CONFLICT',
        `plan ${id} is not applied, nothing was written: ${moved.length === 1 ? 'an object' : `${moved.length} objects`} changed since it was planned: ${moved.join('; ')}`,
      );
    }
    if (!(await store.claim(id, by, now()))) {
      // Another apply won the claim since this one looked.
      const current = await store.get(id);
      throw current === undefined ? new HttpError('NOT_FOUND', `no plan ${id}`) : appliedAlready(current);
    }
    const expectations = stepExpectations(plan.operations);
    const steps = plan.steps.map((step, i) => withExpect(step, expectations[i] ?? []));
    let work: AppliedWork;
    try {
      if (applier === undefined) {
        const task = await this.#deps.runner.submit({ requestId: `plan:${id}`, user: by, steps });
        work = { id: task.id, resourceUri: `/task/${task.id}` };
      } else {
        const record = this.#record(plan);
        work = await applier({ record, steps, by });
      }
    } catch (error) {
      // Nothing was started: the plan may be applied again.
      await store.unclaim(id);
      throw error;
    }
    await store.started(id, work);
    logger.info({ planId: id, user: by, work: work.resourceUri }, 'plan applied');
    return work;
  }

  /**
   * Records that `work` applied the plan, where another feature applies its own plans (a deployment's
   * gate applies the plan it showed when it is decided): the plan then reads `applied`, naming the
   * work, and cannot be applied again. Idempotent: a plan applied already stays as it is.
   */
  async markApplied(id: string, work: AppliedWork, by: string): Promise<void> {
    const { store, now } = this.#deps;
    if (await store.claim(id, by, now())) await store.started(id, work);
  }

  #record(plan: StoredPlan): PlanRecord {
    const { applied } = plan;
    const expired = plan.expiresAt.getTime() <= this.#deps.now().getTime();
    return {
      id: plan.id,
      source: plan.source,
      createdBy: plan.createdBy,
      createdAt: plan.createdAt.toISOString(),
      expiresAt: plan.expiresAt.toISOString(),
      state: applied !== undefined ? 'applied' : expired ? 'expired' : 'planned',
      accounts: plan.accounts,
      operations: plan.operations,
      summary: planSummary(plan.operations),
      ...(applied === undefined || applied.id === null || applied.resourceUri === null
        ? {}
        : {
            applied: {
              id: applied.id,
              resourceUri: applied.resourceUri,
              by: applied.by,
              at: applied.at.toISOString(),
            },
          }),
      resourceUri: `/plans/${plan.id}`,
      applyUri: `/plans/${plan.id}/apply`,
    };
  }
}

/** The 409 of a plan applied before: it names what that apply started (or that it is starting). */
function appliedAlready(plan: StoredPlan): HttpError {
  const applied = plan.applied;
  if (applied === undefined) return new HttpError('CONFLICT', `plan ${plan.id} was applied already`);
  const when = `by ${applied.by} at ${applied.at.toISOString()}`;
  return new HttpError(
    'CONFLICT',
    applied.id === null
      ? `plan ${plan.id} is being applied ${when}; a plan is applied once`
      : `plan ${plan.id} was applied ${when} as ${applied.id} (${applied.resourceUri}); a plan is applied once`,
  );
}
