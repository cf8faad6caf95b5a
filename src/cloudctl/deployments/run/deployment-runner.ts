// Runs deployments: stores a submitted one with every step laid out, then carries its targets on in
// the order `dependsOn` gives (independent targets together), each through TargetRun. Progress is
// stored after every move and every wait has its deadline stored, so a cloudctl killed in the middle
// carries on at start, and a replica takes over a dead one's deployments when their lease expires.
// Approvals and callbacks land in the database (deployment_gates); `wake` only shortens the wait of
// a run in this process, other replicas see them at their next look.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  describeFailure,
  type OperationPayload,
  type OperationResult,
  type OperationType,
} from '../../../contract/index.ts';
import { CodedError } from '../../../lib/coded-error.ts';
import { CloudctlError } from '../../errors.ts';
import type { OperationDispatcher, OperationOutcome } from '../../operations/index.ts';
import type { PreviewLinks } from '../../previews/index.ts';
import { LeaseSweeper, type Leases } from '../../replicas/index.ts';
import { type LoadedDeployment, parseDeploymentFile } from '../deployment-file/load-deployment-file.ts';
import type { MetricProviders } from './analysis/metric-providers.ts';
import type { DeploymentPlan, DeploymentPlanner } from './deployment-planner.ts';
import type { DeploymentProgress, StepState, TargetState } from './deployment-progress.ts';
import { checkTargetMove, deploymentStatus, isRollbackable, isTargetActive } from './deployment-state.ts';
import type { DeploymentStore, Gate, StoredDeployment } from './deployment-store.ts';
import { planFirstDeploys } from './file-plan.ts';
import { layOutTargets } from './step-layout.ts';
import { StepContext } from './steps/index.ts';
import { StepFailure, TargetRun, type TargetRunDeps } from './target-run.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** The log of a deployment keeps its last entries only, so a long-waiting one stays a small row. */
const LOG_ENTRIES_KEPT = 500;

export interface DeploymentRunnerDeps {
  store: DeploymentStore;
  dispatcher: OperationDispatcher;
  /** Whether an operation with this id was stored (sent before a restart). */
  operationStored(id: string): Promise<boolean>;
  webhooks: WebhookSender;
  /** Where jobs call back: `<base>/<secret>` is a run's `{{vendor.callbackUri}}`. */
  callbackBase(): string;
  /** Plans what an approval or a webhook gate opens onto; without it gates show no plan. */
  planner?: DeploymentPlanner;
  leases: Leases;
  /** How often leases are renewed and expired ones looked for. */
  sweepMs: number;
  /** How long a run carried on after a restart waits for an account's agent to reconnect. */
  reconnectGraceMs: number;
  logger: Logger;
  now: () => Date;
  /** How often a wait looks at its gate in the database (a decision on another replica). */
  gatePollMs?: number;
  /** How often readiness is checked while pods start. */
  readyPollMs?: number;
  /** cloudctl's configured metric providers: files are checked against them, analysis asks them. */
  metricProviders: MetricProviders;
  /** Opens the preview URLs of exposeServices steps. */
  previews: Pick<PreviewLinks, 'open'>;
  newId?: () => string;
}

export interface Submission {
  loaded: LoadedDeployment;
  /** The file's text, manifests inline: what a restart parses again. */
  text: string;
  fileName: string;
  user: string;
  /** The id a plan of the file was made for (its versioned names carry it); a new one otherwise. */
  id?: string;
  /** Per target, the plan its deploy step is held to (an applied plan of the file). */
  guards?: Readonly<Record<string, StepState['guard']>>;
}

export class RollbackRefused extends CodedError<'ROLLBACK_REFUSED'> {
  constructor(message: string) {
    super('ROLLBACK_REFUSED', message);
  }
}

function targetManifests(loaded: LoadedDeployment, target: string) {
  return loaded.manifests.filter((m) => m.targets.includes(target)).flatMap((m) => m.objects);
}

export class DeploymentRunner {
  readonly #deps: DeploymentRunnerDeps;
  readonly #running = new Map<string, Promise<void>>();
  readonly #wakers = new Map<string, Set<() => void>>();
  readonly #stop = new AbortController();
  readonly #sweeper: LeaseSweeper;

  constructor(deps: DeploymentRunnerDeps) {
    this.#deps = deps;
    this.#sweeper = new LeaseSweeper({
      leases: deps.leases,
      everyMs: deps.sweepMs,
      running: () => [...this.#running.keys()],
      takeOver: () => this.#takeOver(),
      logger: deps.logger,
      what: 'deployment',
    });
  }

  /** The metric providers files are checked against: every parse of a file here passes them. */
  get analysisProviders(): MetricProviders['configured'] {
    return this.#deps.metricProviders.configured;
  }

  async submit(submission: Submission): Promise<StoredDeployment> {
    const { loaded, user } = submission;
    const file = loaded.deployment;
    const now = this.#deps.now();
    const id = submission.id ?? (this.#deps.newId ?? randomUUID)();
    const targets = layOutTargets(file);
    for (const target of targets) {
      const guard = submission.guards?.[target.name];
      const deploy = target.steps.find((s) => s.kind === 'deploy');
      if (guard !== undefined && deploy !== undefined) deploy.guard = guard;
    }
    const deployment: StoredDeployment = {
      id,
      application: file.application,
      status: 'RUNNING',
      createdBy: user,
      accounts: [...new Set(targets.map((t) => t.account))],
      file: { name: submission.fileName, text: submission.text },
      progress: { targets, log: [{ at: now.toISOString(), message: `submitted by ${user}` }] },
      createdAt: now,
      updatedAt: now,
    };
    await this.#deps.leases.claim(id);
    await this.#deps.store.create(deployment);
    this.#deps.logger.info({ deploymentId: id, application: file.application, user }, 'deployment submitted');
    this.#start(deployment, loaded);
    return deployment;
  }

  /** Rolls back the targets of a finished deployment that deployed something. */
  async requestRollback(id: string, user: string): Promise<StoredDeployment | undefined> {
    const deployment = await this.#deps.store.get(id);
    if (deployment === undefined) return undefined;
    if (deployment.status === 'RUNNING' || this.#running.has(id))
      throw new RollbackRefused(
        'the deployment is still running: reject the pause it waits at (or wait for it to end), then roll back',
      );
    const targets = deployment.progress.targets.filter(isRollbackable);
    if (targets.length === 0)
      throw new RollbackRefused('no target of this deployment deployed anything to roll back');
    const now = this.#deps.now().toISOString();
    for (const target of targets) {
      checkTargetMove(target.status, 'ROLLING_BACK');
      target.status = 'ROLLING_BACK';
      target.message = `rollback asked by ${user}`;
      target.rollbackOperationIds = [];
      deployment.progress.log.push({ at: now, target: target.name, message: `rollback asked by ${user}` });
    }
    deployment.status = 'RUNNING';
    await this.#deps.leases.claim(id);
    await this.#deps.store.save(id, deployment.status, deployment.progress, this.#deps.now());
    this.#start(deployment, undefined);
    return deployment;
  }

  /** A gate was decided in this process: its waiter looks now instead of at its next poll. */
  wake(gateId: string): void {
    for (const wake of this.#wakers.get(gateId) ?? []) wake();
  }

  /** Carries on unfinished deployments no live process holds, then keeps looking every `sweepMs`. */
  async resumeUnfinished(): Promise<number> {
    const resumed = await this.#takeOver();
    this.#sweeper.start();
    return resumed;
  }

  /** Stops where every run is; unfinished deployments stay RUNNING for the next process. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#sweeper.stop();
    await Promise.allSettled(this.#running.values());
  }

  async #takeOver(): Promise<number> {
    let resumed = 0;
    for (const deployment of await this.#deps.store.unfinished()) {
      if (this.#stop.signal.aborted || this.#running.has(deployment.id)) continue;
      if (!(await this.#deps.leases.claim(deployment.id))) continue;
      deployment.progress.log.push({
        at: this.#deps.now().toISOString(),
        message: 'carried on by a cloudctl start',
      });
      this.#start(deployment, undefined);
      resumed++;
    }
    return resumed;
  }

  #start(deployment: StoredDeployment, loaded: LoadedDeployment | undefined): void {
    if (this.#running.has(deployment.id)) return;
    const run = this.#run(deployment, loaded)
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, deploymentId: deployment.id }, 'deployment runner failed'),
      )
      .finally(() => {
        this.#running.delete(deployment.id);
        if (!this.#stop.signal.aborted)
          this.#deps.leases
            .release(deployment.id)
            .catch((error: unknown) =>
              this.#deps.logger.warn(
                { err: error, deploymentId: deployment.id },
                'cannot release a deployment lease',
              ),
            );
      });
    this.#running.set(deployment.id, run);
  }

  async #run(deployment: StoredDeployment, given: LoadedDeployment | undefined): Promise<void> {
    const log = this.#deps.logger.child({ deploymentId: deployment.id });
    let saving: Promise<void> = Promise.resolve();
    const progress: DeploymentProgress = deployment.progress;
    const save = (): Promise<void> => {
      if (progress.log.length > LOG_ENTRIES_KEPT)
        progress.log.splice(0, progress.log.length - LOG_ENTRIES_KEPT);
      deployment.status = deploymentStatus(progress.targets);
      const status = deployment.status;
      const snapshot = structuredClone(progress);
      // One write at a time, in order: targets running together share this row.
      saving = saving.then(() => this.#deps.store.save(deployment.id, status, snapshot, this.#deps.now()));
      return saving;
    };
    const loaded =
      given ??
      (await parseDeploymentFile(deployment.file.text, {
        file: deployment.file.name,
        baseDir: undefined,
        analysisProviders: this.analysisProviders,
      }));
    if (!loaded.ok) {
      // Only a file that parsed is stored; one that no longer does (a changed schema) is reported.
      for (const target of progress.targets) {
        if (target.status === 'PENDING') target.status = 'CANCELED';
        else if (target.status === 'RUNNING' || target.status === 'ROLLING_BACK') target.status = 'FAILED';
        target.message = `the stored deployment file no longer loads: ${loaded.issues[0]?.message ?? 'unknown problem'}`;
      }
      await save();
      return;
    }
    const file = loaded.deployment;
    const running = new Map<string, Promise<void>>();
    for (;;) {
      for (const target of progress.targets) {
        if (running.has(target.name)) continue;
        if (target.status === 'PENDING') {
          const needs = file.targets[target.name]?.constraints.dependsOn ?? [];
          const statuses = needs.map((name) => progress.targets.find((t) => t.name === name)?.status);
          const blocked = needs.filter((_, i) => {
            const status = statuses[i];
            return status !== undefined && !isTargetActive(status) && status !== 'SUCCEEDED';
          });
          if (blocked.length > 0) {
            checkTargetMove(target.status, 'CANCELED');
            target.status = 'CANCELED';
            target.message = `not deployed: ${blocked.join(', ')} did not succeed`;
            progress.log.push({
              at: this.#deps.now().toISOString(),
              target: target.name,
              message: target.message,
            });
            for (const step of target.steps) step.status = 'SKIPPED';
            await save();
            continue;
          }
          if (!statuses.every((s) => s === 'SUCCEEDED')) continue;
        } else if (!isTargetActive(target.status)) continue;
        running.set(
          target.name,
          this.#runTarget(deployment, file, loaded, target, save).finally(() => running.delete(target.name)),
        );
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
      if (this.#stop.signal.aborted) {
        await Promise.allSettled(running.values());
        await saving;
        return;
      }
    }
    await save();
    log.info({ status: deployment.status }, 'deployment ended');
  }

  async #runTarget(
    deployment: StoredDeployment,
    file: LoadedDeployment['deployment'],
    loaded: LoadedDeployment,
    target: TargetState,
    save: () => Promise<void>,
  ): Promise<void> {
    const logger = this.#deps.logger.child({ deploymentId: deployment.id, target: target.name });
    const run = new TargetRun({
      ...this.#targetDeps(deployment, file, loaded, target),
      save,
      log: (message) => {
        deployment.progress.log.push({ at: this.#deps.now().toISOString(), target: target.name, message });
        logger.info(message);
      },
      operation: (ids, index, account, type, payload) =>
        this.#operation(save, ids, index, account, type, payload),
      gates: {
        open: (id, stepKey, kind) =>
          this.#deps.store.openGate({ id, deploymentId: deployment.id, stepKey, kind }, this.#deps.now()),
        wait: (id, until, signal) => this.#waitGate(id, until, signal),
      },
    });
    try {
      await run.run();
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      // Not a step's failure: a bug or the database. The target fails and says why.
      const message = `cloudctl could not carry the target on: ${error instanceof Error ? error.message : String(error)}`;
      logger.error({ err: error }, 'target failed unexpectedly');
      for (const step of target.steps)
        if (step.status === 'RUNNING') Object.assign(step, { status: 'FAILED', message });
      if (target.status === 'RUNNING' || target.status === 'ROLLING_BACK') {
        target.status = 'FAILED';
        target.message = message;
      }
      await save();
    }
  }

  /** What a target's run reads and knows; its writes, saves and gates are the caller's. */
  #targetDeps(
    deployment: Pick<StoredDeployment, 'id' | 'application' | 'createdBy'>,
    file: LoadedDeployment['deployment'],
    loaded: LoadedDeployment,
    target: TargetState,
  ): Omit<TargetRunDeps, 'save' | 'log' | 'operation' | 'gates'> {
    return {
      deploymentId: deployment.id,
      application: deployment.application,
      createdBy: deployment.createdBy,
      file,
      manifests: targetManifests(loaded, target.name),
      target,
      now: this.#deps.now,
      signal: this.#stop.signal,
      read: (account, type, payload) => this.#read(account, type, payload),
      webhooks: this.#deps.webhooks,
      callbackUri: (secret) => `${this.#deps.callbackBase()}/${secret}`,
      planner: this.#deps.planner,
      readyPollMs: this.#deps.readyPollMs ?? 1000,
      metricProviders: this.#deps.metricProviders,
      previews: this.#deps.previews,
    };
  }

  /**
   * Plans the first deploy of each target of a file without starting anything (file-plan.ts), for a
   * deployment id chosen now: the one the deployment gets when the plan is applied.
   */
  async planFile(submission: Omit<Submission, 'id' | 'guards'>): Promise<DeploymentPlan> {
    const { planner } = this.#deps;
    if (planner === undefined) throw new StepFailure('this cloudctl makes no plans', false);
    const { loaded, user } = submission;
    const deployment = {
      id: (this.#deps.newId ?? randomUUID)(),
      application: loaded.deployment.application,
      createdBy: user,
    };
    const refuse = (): never => {
      throw new StepFailure('planning writes nothing and waits for nothing', false);
    };
    return planFirstDeploys({
      ...submission,
      deploymentId: deployment.id,
      planner,
      contextOf: (target) =>
        new StepContext({
          ...this.#targetDeps(deployment, loaded.deployment, loaded, target),
          save: async () => {},
          log: () => {},
          operation: refuse,
          gates: { open: refuse, wait: refuse },
        }),
    });
  }

  /** Sends an operation whose id is kept in `ids[index]`, or awaits the one sent before a restart. */
  #operation<T extends OperationType>(
    save: () => Promise<void>,
    ids: string[],
    index: number,
    account: string,
    type: T,
    payload: OperationPayload<T>,
  ): Promise<OperationResult<T>> {
    const { dispatcher } = this.#deps;
    return this.#result(type, account, async () => {
      const existing = ids[index];
      if (existing !== undefined && (await this.#deps.operationStored(existing)))
        return dispatcher.await(existing, type);
      const id = (this.#deps.newId ?? randomUUID)();
      ids[index] = id;
      await save();
      await this.#agentBack(account);
      return dispatcher.execute({ id, account, type, payload });
    });
  }

  /** A read through the agent: nothing to find again after a restart. */
  #read<T extends OperationType>(
    account: string,
    type: T,
    payload: OperationPayload<T>,
  ): Promise<OperationResult<T>> {
    return this.#result(type, account, async () => {
      await this.#agentBack(account);
      return this.#deps.dispatcher.execute({ account, type, payload });
    });
  }

  /** The operation's result, or the step's failure naming the operation and the account. */
  async #result<T extends OperationType>(
    type: T,
    account: string,
    run: () => Promise<OperationOutcome<T>>,
  ): Promise<OperationResult<T>> {
    let outcome: OperationOutcome<T>;
    try {
      outcome = await run();
    } catch (error) {
      throw this.#failure(type, account, error);
    }
    if (outcome.outcome === 'failed')
      throw new StepFailure(`${type} on account ${account} failed: ${describeFailure(outcome.error)}`, false);
    return outcome.result;
  }

  #failure(type: string, account: string, error: unknown): Error {
    if (this.#stop.signal.aborted) return error instanceof Error ? error : new Error(String(error));
    if (error instanceof CloudctlError)
      return new StepFailure(`${type} on account ${account}: ${error.message}`, false);
    return error instanceof Error ? error : new Error(String(error));
  }

  /** After a restart agents reconnect within seconds: give the account's agent that long to return. */
  async #agentBack(account: string): Promise<void> {
    const deadline = this.#deps.now().getTime() + this.#deps.reconnectGraceMs;
    while (!(await this.#deps.dispatcher.serves(account))) {
      if (this.#deps.now().getTime() >= deadline) return;
      await sleep(200, undefined, { signal: this.#stop.signal });
    }
  }

  async #waitGate(id: string, until: Date | undefined, signal: AbortSignal): Promise<Gate | 'expired'> {
    for (;;) {
      const gate = await this.#deps.store.gate(id);
      if (gate !== undefined && gate.verdict !== null) return gate;
      const left =
        until === undefined ? Number.POSITIVE_INFINITY : until.getTime() - this.#deps.now().getTime();
      if (left <= 0) return 'expired';
      await this.#nap(id, Math.min(left, this.#deps.gatePollMs ?? 1000), signal);
    }
  }

  /** Sleeps up to `ms`, less if the gate is decided here; throws when `signal` aborts. */
  async #nap(gateId: string, ms: number, signal: AbortSignal): Promise<void> {
    const woken = new AbortController();
    const wakers = this.#wakers.get(gateId) ?? new Set<() => void>();
    const wake = () => woken.abort();
    wakers.add(wake);
    this.#wakers.set(gateId, wakers);
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any([woken.signal, signal]) });
    } catch (error) {
      if (signal.aborted) throw error;
    } finally {
      wakers.delete(wake);
      if (wakers.size === 0) this.#wakers.delete(gateId);
    }
  }
}
