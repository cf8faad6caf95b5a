// Runs tasks: the steps of a POST /ops, one after another, each an operation on the agent serving
// its account. Progress is stored after every move, so a task outlives the process that started it:
// at start cloudctl carries on every unfinished task, waiting for operations sent before the
// restart rather than sending them again. A task whose agent is gone fails and says so; such a
// failure is retryable (nothing was changed, or the outcome is unknown because the agent was away),
// and a client's restart runs the task's remaining steps again on this replica, its owner from then
// on: a step whose operation has a result takes it, one whose outcome is unknown is sent again under
// its id, so nothing an agent applied is applied twice.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Expression } from 'kysely';
import type { Logger } from 'pino';
import { describeFailure } from '../../contract/index.ts';
import { CloudctlError } from '../errors.ts';
import type { OperationDispatcher, OperationOutcome, OperationStore } from '../operations/index.ts';
import { LeaseSweeper, type MovableLeases } from '../replicas/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import { CONVERTERS } from './converters/index.ts';
import type { DeployRecords } from './deploy-records.ts';
import type { StoredTask, TaskStep, TaskStore } from './task-store.ts';

export const ORCHESTRATION = 'ORCHESTRATION';

/**
 * Failures a restart may mend: no agent served the account (nothing was sent), or the outcome is
 * unknown (the agent did not report by the deadline, or the operation went out but could not be
 * stored); the operation is sent again under its id.
 */
const RETRYABLE_FAILURES: ReadonlySet<string> = new Set([
  'AGENT_NOT_CONNECTED',
  'OPERATION_TIMEOUT',
  'OPERATION_UNRECORDED',
]);

/** What a restart found: the task, and whether it was a retryable failure that now runs again. */
export type RestartOutcome = { task: StoredTask; restarted: boolean } | undefined;

/** A run of a task in this process, and how to stop it where it waits. */
interface Run {
  done: Promise<void>;
  stop: AbortController;
}

export interface TaskRunnerDeps {
  /** `deployed`, where present, is told of each deploy step that succeeded (drift/ keeps them). */
  store: { tasks: TaskStore; operations: OperationStore; deployed?: DeployRecords };
  dispatcher: OperationDispatcher;
  registry: AgentRegistry;
  logger: Logger;
  now: () => Date;
  /** How long a task carried on after a restart waits for its agent to reconnect. */
  reconnectGraceMs: number;
  /**
   * Task leases held as this process: a task runs where its lease is, and another replica carries it
   * on once the lease expires (its replica died) or a client restarts it there.
   */
  leases: MovableLeases;
  /** This replica's name as a task's owner: the name its leases are held in. */
  owner: string;
  /** How often leases are renewed and expired ones looked for. */
  sweepMs: number;
  newId?: () => string;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #running = new Map<string, Run>();
  /** Tasks carried on after a restart: their agents may not have reconnected yet. */
  readonly #resumed = new Set<string>();
  /** Tasks a client restarted: a step whose operation's outcome is unknown sends it again. */
  readonly #restarted = new Set<string>();
  /**
   * Tasks submitted to this process and run here since: their steps' operation ids were stored with
   * the task, and no step's operation was sent before this run sent it, so none is looked up first.
   */
  readonly #submitted = new Set<string>();
  #stopping = false;
  readonly #sweeper: LeaseSweeper;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
    this.#sweeper = new LeaseSweeper({
      leases: deps.leases,
      everyMs: deps.sweepMs,
      running: () => [...this.#running.keys()],
      takeOver: () => this.#takeOver(),
      logger: deps.logger,
      what: 'task',
    });
  }

  /** Stores a new task (or finds the one holding its request id) and starts it. */
  async submit(request: { requestId: string | null; user: string; steps: TaskStep[] }): Promise<StoredTask> {
    const now = this.#deps.now();
    const newId = this.#deps.newId ?? randomUUID;
    const id = newId();
    // Leased before it is stored, so no sweep (here or on another replica) takes a new task for one
    // left behind.
    await this.#deps.leases.claim(id);
    const task = await this.#deps.store.tasks.create({
      id,
      requestId: request.requestId,
      user: request.user,
      accounts: [...new Set(request.steps.map((s) => s.account))],
      // Each step's operation id is stored with the task, so a step sends its operation without
      // writing the task first, and a restart still finds the operation under the id (#execute).
      steps: request.steps.map((step) => ({ ...step, operationId: step.operationId ?? newId() })),
      nextStep: 0,
      state: 'STARTED',
      owner: this.#deps.owner,
      retryable: false,
      history: [{ phase: ORCHESTRATION, status: 'Initializing Orchestration Task' }],
      resultObjects: [],
      createdAt: now,
      updatedAt: now,
    });
    if (task.id === id) {
      this.#submitted.add(id);
      this.#start(task);
    } else {
      // The request id found an earlier task: it runs where its lease is, or has finished.
      await this.#deps.leases.release(id);
    }
    return task;
  }

  /**
   * Carries on the unfinished tasks no live process holds (left by a restart or a dead replica), and
   * from then on renews the leases of what runs here and looks again every `sweepMs`.
   */
  async resumeUnfinished(): Promise<number> {
    const resumed = await this.#takeOver();
    this.#sweeper.start();
    return resumed;
  }

  /** Stops carrying tasks on; unfinished ones stay STARTED for the next process. */
  async close(): Promise<void> {
    this.#stopping = true;
    await this.#sweeper.stop();
    await Promise.allSettled([...this.#running.values()].map((run) => run.done));
  }

  /**
   * A client's verdict (`PATCH /{provider}/task/{id}`): the task fails, retryable or not as asked; a
   * run of it here stops where it waits, one on another replica at its next write. A completed task
   * stays completed. Answers the task as it is now; undefined when there is none.
   */
  async markFailed(id: string, retryable: boolean, user: string): Promise<StoredTask | undefined> {
    const status = `Orchestration failed: ${user} marked the task failed${retryable ? ' for a restart' : ''}`;
    const task = await this.#deps.store.tasks.markFailed(id, retryable, status, this.#deps.now());
    if (task?.state === 'FAILED') await this.#stop(id);
    return task;
  }

  /**
   * Runs a retryable failed task again on this replica, its owner from now on, from the step it
   * stopped at (`POST /{provider}/task/{id}/restart`, `POST /task/{id}:resume`). Nothing changes for
   * a task that is not a retryable failure (`restarted` false); undefined when there is none.
   */
  async restart(id: string): Promise<RestartOutcome> {
    const { store, leases, now } = this.#deps;
    const task = await store.tasks.get(id);
    if (task === undefined) return undefined;
    if (task.state !== 'FAILED' || !task.retryable) return { task, restarted: false };
    // A run still here is one the failure stopped: it ends before the new one starts.
    await this.#stop(id);
    const outcome = await store.tasks.restart(id, this.#deps.owner, now());
    if (outcome?.restarted !== true) return outcome;
    await leases.take(id);
    this.#restarted.add(id);
    this.#start(outcome.task);
    return outcome;
  }

  async #stop(id: string): Promise<void> {
    const run = this.#running.get(id);
    if (run === undefined) return;
    run.stop.abort(new CloudctlError('TASK_MOVED', `task ${id} was failed by a client`));
    await run.done;
  }

  async #takeOver(): Promise<number> {
    let resumed = 0;
    for (const task of await this.#deps.store.tasks.unfinished()) {
      if (this.#stopping || this.#running.has(task.id)) continue;
      if (!(await this.#deps.leases.claim(task.id))) continue;
      const taken = await this.#deps.store.tasks.takeOver(task.id, this.#deps.owner, this.#deps.now());
      if (taken === undefined) {
        // Finished or failed since it was listed.
        await this.#deps.leases.release(task.id);
        continue;
      }
      taken.history.push({ phase: ORCHESTRATION, status: 'Resuming after a cloudctl restart' });
      this.#resumed.add(task.id);
      this.#start(taken);
      resumed++;
    }
    return resumed;
  }

  #start(task: StoredTask): void {
    if (task.state !== 'STARTED' || this.#running.has(task.id)) return;
    const stop = new AbortController();
    const done = this.#run(task, stop.signal)
      .catch((error: unknown) => {
        if (error instanceof CloudctlError && error.code === 'TASK_MOVED') {
          this.#deps.logger.info({ taskId: task.id, reason: error.message }, 'task no longer runs here');
        } else this.#deps.logger.error({ err: error, taskId: task.id }, 'task runner failed');
      })
      .finally(async () => {
        this.#running.delete(task.id);
        this.#resumed.delete(task.id);
        this.#restarted.delete(task.id);
        this.#submitted.delete(task.id);
        // Finished (or stopping): a finished task is never claimed again; a stopped one waits for
        // its lease to expire unless this same owner comes back. Released before a restart here
        // takes the lease again, so the release cannot undo the take.
        if (!this.#stopping) {
          await this.#deps.leases
            .release(task.id)
            .catch((error: unknown) =>
              this.#deps.logger.warn({ err: error, taskId: task.id }, 'cannot release a task lease'),
            );
        }
      });
    this.#running.set(task.id, { done, stop });
  }

  /**
   * Writes the task's progress as its owner, its steps too when a step's operation id was just set;
   * throws TASK_MOVED when it is no longer ours to write.
   */
  async #save(
    task: StoredTask,
    stepsChanged = false,
    alongside?: Expression<Record<string, unknown>>,
  ): Promise<void> {
    const { tasks } = this.#deps.store;
    const saved = await tasks.saveAsOwner(task, this.#deps.owner, this.#deps.now(), {
      stepsChanged,
      alongside,
    });
    if (!saved) {
      throw new CloudctlError(
        'TASK_MOVED',
        `task ${task.id} is no longer run by ${this.#deps.owner}: failed by a client, or taken over`,
      );
    }
  }

  async #run(task: StoredTask, stopped: AbortSignal): Promise<void> {
    const log = this.#deps.logger.child({ taskId: task.id });
    /** The last step run, whose success is saved with the task's completion. */
    let last: TaskStep | undefined;
    for (let index = task.nextStep; index < task.steps.length; index++) {
      const step = task.steps[index];
      if (step === undefined) break;
      task.history.push({ phase: step.phase, status: step.description });
      let outcome: OperationOutcome;
      try {
        outcome = await untilStopped(this.#execute(task, step), stopped);
      } catch (error) {
        if (this.#stopping && error instanceof CloudctlError && error.code === 'SESSION_CLOSED') return;
        if (error instanceof CloudctlError && error.code === 'TASK_MOVED') throw error;
        const message = this.#explain(step, error);
        const retryable = error instanceof CloudctlError && RETRYABLE_FAILURES.has(error.code);
        await this.#fail(task, step, message, retryable);
        log.warn({ step: step.name, account: step.account, reason: message }, 'task failed');
        return;
      }
      if (outcome.outcome === 'failed') {
        await this.#fail(
          task,
          step,
          `${step.name} failed on account ${step.account}: ${describeFailure(outcome.error)}`,
        );
        return;
      }
      const converter = CONVERTERS.find((c) => c.name === step.name);
      const resultObject = converter?.resultObject(step.input, step, outcome.result);
      if (resultObject !== undefined) task.resultObjects.push(resultObject);
      task.history.push({ phase: step.phase, status: `${step.name} succeeded` });
      task.nextStep = index + 1;
      // The last step's progress is saved with the task's completion, just below: one write less
      // before a client can see the task done. A restart in between carries the task on at that step,
      // whose operation id is stored, and takes the operation's stored result (#execute).
      if (task.nextStep < task.steps.length) await this.#saveStep(task, step);
      else last = step;
    }
    task.state = 'COMPLETED';
    task.history.push({ phase: ORCHESTRATION, status: 'Orchestration completed.' });
    await this.#saveStep(task, last);
    log.info('task completed');
  }

  /**
   * Saves the task's progress after `step` succeeded (none: the progress alone), and in the same
   * statement the manifests a deploy step applied (the drift feature's record). The task went well
   * whatever the record does: a save that fails with it is logged and made again without it.
   */
  async #saveStep(task: StoredTask, step: TaskStep | undefined): Promise<void> {
    const record =
      step?.type === 'deploy'
        ? this.#deps.store.deployed?.recordDeployed(step.account, step.payload.manifests, this.#deps.now())
        : undefined;
    if (record === undefined) return this.#save(task);
    try {
      await this.#save(task, false, record);
    } catch (error) {
      if (error instanceof CloudctlError && error.code === 'TASK_MOVED') throw error;
      this.#deps.logger.warn(
        { err: error, taskId: task.id, account: step?.account },
        'cannot record the manifests a deploy applied',
      );
      await this.#save(task);
    }
  }

  /**
   * Sends the step's operation, or waits for it if an earlier process sent it already. In a task a
   * client restarted, an operation whose outcome is unknown is sent again under its id, and one that
   * failed is made again under a new id (the agent would answer the old id with the old failure).
   */
  async #execute(task: StoredTask, step: TaskStep): Promise<OperationOutcome> {
    const { dispatcher, store } = this.#deps;
    const { type, payload, account } = step;
    // Submitted here and never sent: the id is stored already and there is nothing to look up. The
    // step's history line is saved while the agent works, not before the operation is sent.
    if (this.#submitted.has(task.id) && step.operationId !== null) {
      // The step's operation id is stored with the task, so the operation may go out while its own
      // row is written (a restart finds the id, and sends it again under it).
      const sending = dispatcher.execute({
        id: step.operationId,
        account,
        type,
        payload,
        idStoredByCaller: true,
      });
      const [sent, saved] = await Promise.allSettled([sending, this.#save(task)]);
      if (saved.status === 'rejected') throw saved.reason;
      if (sent.status === 'rejected') throw sent.reason;
      return sent.value;
    }
    const newId = this.#deps.newId ?? randomUUID;
    const sent = step.operationId === null ? undefined : await store.operations.get(step.operationId);
    if (step.operationId !== null && sent !== undefined) {
      if (!this.#restarted.has(task.id)) return dispatcher.await(step.operationId, step.type);
      if (sent.state !== 'failed') return dispatcher.resend(step.operationId, step.type);
      step.operationId = newId();
    }
    step.operationId ??= newId();
    await this.#save(task, true);
    if (this.#resumed.has(task.id)) await this.#agentBack(step.account);
    return dispatcher.execute({ id: step.operationId, account, type, payload });
  }

  /** After a restart agents reconnect within seconds: give the account's agent that long to return. */
  async #agentBack(account: string): Promise<void> {
    const deadline = this.#deps.now().getTime() + this.#deps.reconnectGraceMs;
    while (!(await this.#deps.dispatcher.serves(account)) && !this.#stopping) {
      if (this.#deps.now().getTime() >= deadline) return;
      await sleep(200);
    }
  }

  #explain(step: TaskStep, error: unknown): string {
    if (error instanceof CloudctlError && error.code === 'AGENT_NOT_CONNECTED') {
      return `no connected agent serves account ${step.account}: ${step.name} was not sent, nothing changed`;
    }
    if (error instanceof CloudctlError && error.code === 'OPERATION_TIMEOUT') {
      const session = this.#deps.registry.sessionFor(step.account);
      return session === undefined
        ? `the agent serving account ${step.account} disconnected and did not come back before the deadline: ` +
            `the outcome of ${step.name} (operation ${step.operationId}) is unknown`
        : `agent ${session.agentId} did not report the result of ${step.name} (operation ${step.operationId}) ` +
            'before the deadline: its outcome is unknown';
    }
    if (error instanceof CloudctlError && error.code === 'OPERATION_UNRECORDED') {
      return `the outcome of ${step.name} on account ${step.account} is unknown: ${error.message}`;
    }
    return `${step.name} could not be carried out: ${error instanceof Error ? error.message : String(error)}`;
  }

  async #fail(task: StoredTask, step: TaskStep, message: string, retryable = false): Promise<void> {
    task.state = 'FAILED';
    task.retryable = retryable;
    task.history.push({ phase: ORCHESTRATION, status: `Orchestration failed: ${message}` });
    task.resultObjects.push({
      type: 'EXCEPTION',
      operation: step.name,
      message,
      cause: message,
      retryable,
    });
    await this.#save(task);
  }
}

/** The promise, unless the signal stops the wait first (with the signal's reason). */
function untilStopped<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
