// Runs tasks: the steps of a POST /ops, one after another, each an operation on the agent serving
// its account. Progress is stored after every move, so a task outlives the process that started it:
// at start cloudctl carries on every unfinished task, waiting for operations sent before the
// restart rather than sending them again. A task whose agent is gone fails and says so.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeFailure } from '../../contract/index.ts';
import { CloudctlError } from '../errors.ts';
import type { OperationDispatcher, OperationOutcome, OperationStore } from '../operations/index.ts';
import { LeaseSweeper, type Leases } from '../replicas/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import { CONVERTERS } from './converters/index.ts';
import type { StoredTask, TaskProgress, TaskStep, TaskStore } from './task-store.ts';

export const ORCHESTRATION = 'ORCHESTRATION';

export interface TaskRunnerDeps {
  store: { tasks: TaskStore; operations: OperationStore };
  dispatcher: OperationDispatcher;
  registry: AgentRegistry;
  logger: Logger;
  now: () => Date;
  /** How long a task carried on after a restart waits for its agent to reconnect. */
  reconnectGraceMs: number;
  /**
   * Task leases held as this process: a task runs where its lease is, and another replica carries it
   * on once the lease expires (its replica died).
   */
  leases: Leases;
  /** How often leases are renewed and expired ones looked for. */
  sweepMs: number;
  newId?: () => string;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #running = new Map<string, Promise<void>>();
  /** Tasks carried on after a restart: their agents may not have reconnected yet. */
  readonly #resumed = new Set<string>();
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
    const id = (this.#deps.newId ?? randomUUID)();
    // Leased before it is stored, so no sweep (here or on another replica) takes a new task for one
    // left behind.
    await this.#deps.leases.claim(id);
    const task = await this.#deps.store.tasks.create({
      id,
      requestId: request.requestId,
      user: request.user,
      accounts: [...new Set(request.steps.map((s) => s.account))],
      steps: request.steps,
      nextStep: 0,
      state: 'STARTED',
      history: [{ phase: ORCHESTRATION, status: 'Initializing Orchestration Task' }],
      resultObjects: [],
      createdAt: now,
      updatedAt: now,
    });
    if (task.id === id) this.#start(task);
    else {
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
    await Promise.allSettled(this.#running.values());
  }

  async #takeOver(): Promise<number> {
    let resumed = 0;
    for (const task of await this.#deps.store.tasks.unfinished()) {
      if (this.#stopping || this.#running.has(task.id)) continue;
      if (!(await this.#deps.leases.claim(task.id))) continue;
      task.history.push({ phase: ORCHESTRATION, status: 'Resuming after a cloudctl restart' });
      this.#resumed.add(task.id);
      this.#start(task);
      resumed++;
    }
    return resumed;
  }

  #start(task: StoredTask): void {
    if (task.state !== 'STARTED' || this.#running.has(task.id)) return;
    const run = this.#run(task)
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, taskId: task.id }, 'task runner failed'),
      )
      .finally(() => {
        this.#running.delete(task.id);
        // Finished (or stopping): a finished task is never claimed again; a stopped one waits for
        // its lease to expire unless this same owner comes back.
        if (!this.#stopping) {
          this.#deps.leases
            .release(task.id)
            .catch((error: unknown) =>
              this.#deps.logger.warn({ err: error, taskId: task.id }, 'cannot release a task lease'),
            );
        }
      });
    this.#running.set(task.id, run);
  }

  async #save(task: StoredTask): Promise<void> {
    const progress: TaskProgress = task;
    await this.#deps.store.tasks.update(task.id, progress, this.#deps.now());
  }

  async #run(task: StoredTask): Promise<void> {
    const log = this.#deps.logger.child({ taskId: task.id });
    for (let index = task.nextStep; index < task.steps.length; index++) {
      const step = task.steps[index];
      if (step === undefined) break;
      task.history.push({ phase: step.phase, status: step.description });
      let outcome: OperationOutcome;
      try {
        outcome = await this.#execute(task, step);
      } catch (error) {
        if (this.#stopping && error instanceof CloudctlError && error.code === 'SESSION_CLOSED') return;
        const message = this.#explain(step, error);
        await this.#fail(task, step, message);
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
      if (task.nextStep < task.steps.length) await this.#save(task);
    }
    this.#resumed.delete(task.id);
    task.state = 'COMPLETED';
    task.history.push({ phase: ORCHESTRATION, status: 'Orchestration completed.' });
    await this.#save(task);
    log.info('task completed');
  }

  /** Sends the step's operation, or waits for it if an earlier process sent it already. */
  async #execute(task: StoredTask, step: TaskStep): Promise<OperationOutcome> {
    const { dispatcher, store } = this.#deps;
    if (step.operationId !== null && (await store.operations.get(step.operationId)) !== undefined) {
      return dispatcher.await(step.operationId, step.type);
    }
    step.operationId ??= (this.#deps.newId ?? randomUUID)();
    await this.#save(task);
    if (this.#resumed.has(task.id)) await this.#agentBack(step.account);
    const { type, payload, account } = step;
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
    return `${step.name} could not be carried out: ${error instanceof Error ? error.message : String(error)}`;
  }

  async #fail(task: StoredTask, step: TaskStep, message: string): Promise<void> {
    this.#resumed.delete(task.id);
    task.state = 'FAILED';
    task.history.push({ phase: ORCHESTRATION, status: `Orchestration failed: ${message}` });
    task.resultObjects.push({
      type: 'EXCEPTION',
      operation: step.name,
      message,
      cause: message,
      retryable: false,
    });
    await this.#save(task);
  }
}
