// Runs tasks: the steps of a POST /ops, one after another, each an operation on the agent serving
// its account. Progress is stored after every move, so a task outlives the process that started it:
// at start cloudctl carries on every unfinished task, waiting for operations sent before the
// restart rather than sending them again. A task whose agent is gone fails and says so.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { CloudctlError } from '../errors.ts';
import type { OperationDispatcher, OperationOutcome } from '../operations/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import type { CloudctlStore } from '../store/index.ts';
import { CONVERTERS } from './converters/index.ts';
import type { StoredTask, TaskProgress, TaskStep } from './task-store.ts';

export const ORCHESTRATION = 'ORCHESTRATION';

export interface TaskRunnerDeps {
  store: CloudctlStore;
  dispatcher: OperationDispatcher;
  registry: AgentRegistry;
  logger: Logger;
  now: () => Date;
  /** How long a task carried on after a restart waits for its agent to reconnect. */
  reconnectGraceMs: number;
  newId?: () => string;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #running = new Map<string, Promise<void>>();
  /** Tasks carried on after a restart: their agents may not have reconnected yet. */
  readonly #resumed = new Set<string>();
  #stopping = false;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
  }

  /** Stores a new task (or finds the one holding its request id) and starts it. */
  async submit(request: { requestId: string | null; user: string; steps: TaskStep[] }): Promise<StoredTask> {
    const now = this.#deps.now();
    const task = await this.#deps.store.tasks.create({
      id: (this.#deps.newId ?? randomUUID)(),
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
    this.#start(task);
    return task;
  }

  /** Carries on the tasks a previous process left unfinished. */
  async resumeUnfinished(): Promise<number> {
    const tasks = await this.#deps.store.tasks.unfinished();
    for (const task of tasks) {
      task.history.push({ phase: ORCHESTRATION, status: 'Resuming after a cloudctl restart' });
      this.#resumed.add(task.id);
      this.#start(task);
    }
    return tasks.length;
  }

  /** Stops carrying tasks on; unfinished ones stay STARTED for the next process. */
  async close(): Promise<void> {
    this.#stopping = true;
    await Promise.allSettled(this.#running.values());
  }

  #start(task: StoredTask): void {
    if (task.state !== 'STARTED' || this.#running.has(task.id)) return;
    const run = this.#run(task)
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, taskId: task.id }, 'task runner failed'),
      )
      .finally(() => this.#running.delete(task.id));
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
          `${step.name} failed on account ${step.account}: ${outcome.error ?? 'no reason given'}`,
        );
        return;
      }
      const converter = CONVERTERS.find((c) => c.name === step.name);
      const resultObject = converter?.resultObject(step.input, step, outcome.result);
      if (resultObject !== undefined) task.resultObjects.push(resultObject);
      task.history.push({ phase: step.phase, status: `${step.name} succeeded` });
      task.nextStep = index + 1;
      await this.#save(task);
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
      return dispatcher.await(step.operationId);
    }
    step.operationId ??= (this.#deps.newId ?? randomUUID)();
    await this.#save(task);
    if (this.#resumed.has(task.id)) await this.#agentBack(step.account);
    return dispatcher.execute({
      id: step.operationId,
      account: step.account,
      type: step.type,
      payload: step.payload,
    });
  }

  /** After a restart agents reconnect within seconds: give the account's agent that long to return. */
  async #agentBack(account: string): Promise<void> {
    const deadline = this.#deps.now().getTime() + this.#deps.reconnectGraceMs;
    while (this.#deps.registry.sessionFor(account) === undefined && !this.#stopping) {
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
