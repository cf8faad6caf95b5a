// Carries one target of a deployment from where its stored progress says it is: its steps in order
// (steps of one group in parallel), then success; or, when a step fails, failure, and for a failed
// webhook or a new version that does not become ready inside the strategy, the automatic rollback.
// Every wait (a pause, an approval, a webhook's callback, pods getting ready) has its deadline stored,
// so a cloudctl started again waits only for what is left. Each step kind is its own file (steps/).
import { durationMs } from '../deployment-file/duration.ts';
import { blueGreenServices, meshManaged, trafficOf } from '../deployment-file/traffic-management.ts';
import type { WriteCall } from './deployment-planner.ts';
import type { StepState, TargetState } from './deployment-progress.ts';
import { checkTargetMove, type StepStatus, type TargetStatus } from './deployment-state.ts';
import {
  checkPlanned,
  STEPS,
  StepContext,
  StepFailure,
  scaleCall,
  selectCall,
  type TargetRunDeps,
} from './steps/index.ts';
import { TrafficError, trafficTargetOf, trafficWrites } from './traffic/index.ts';

export { callbackGateId, StepFailure, type TargetRunDeps } from './steps/index.ts';

export class TargetRun {
  readonly #deps: TargetRunDeps;
  /** What the step kinds share, the signal that ends the waits of the steps running now included. */
  readonly #run: StepContext;

  constructor(deps: TargetRunDeps) {
    this.#deps = deps;
    this.#run = new StepContext(deps);
  }

  get #target(): TargetState {
    return this.#deps.target;
  }

  async run(): Promise<void> {
    const target = this.#target;
    if (target.status === 'PENDING') {
      target.startedAt = this.#deps.now().toISOString();
      await this.#move('RUNNING');
    }
    if (target.status === 'RUNNING') {
      try {
        for (const group of this.#groups()) await this.#runGroup(group);
        await this.#finish('SUCCEEDED', undefined);
      } catch (error) {
        if (!(error instanceof StepFailure)) throw error;
        this.#skipRest();
        if (error.rollback && target.workloads !== undefined) {
          target.message = `${error.message}; rolling back`;
          this.#deps.log(`rolling back automatically: ${error.message}`);
          await this.#move('ROLLING_BACK');
        } else {
          await this.#finish('FAILED', error.message);
        }
      }
    }
    if (target.status === 'ROLLING_BACK') {
      try {
        await this.#rollback();
        const reason = target.message?.replace(/; rolling back$/, '');
        await this.#finish('ROLLED_BACK', reason === undefined ? 'rolled back' : `${reason}; rolled back`);
      } catch (error) {
        if (!(error instanceof StepFailure)) throw error;
        await this.#finish('FAILED', `rollback failed: ${error.message}`);
      }
    }
  }

  async #move(status: TargetStatus): Promise<void> {
    checkTargetMove(this.#target.status, status);
    this.#target.status = status;
    await this.#deps.save();
  }

  async #finish(status: TargetStatus, message: string | undefined): Promise<void> {
    this.#target.message = message;
    this.#target.finishedAt = this.#deps.now().toISOString();
    this.#deps.log(
      message === undefined ? `target ${status.toLowerCase()}` : `target ${status.toLowerCase()}: ${message}`,
    );
    await this.#move(status);
  }

  /** Consecutive steps of one group run together; every other step alone. */
  #groups(): StepState[][] {
    const groups: StepState[][] = [];
    for (const step of this.#target.steps) {
      const last = groups.at(-1);
      if (step.group !== undefined && last?.[0]?.group === step.group) last.push(step);
      else groups.push([step]);
    }
    return groups;
  }

  #skipRest(): void {
    for (const step of this.#target.steps) {
      if (step.status === 'PENDING') this.#setStep(step, 'SKIPPED');
    }
  }

  #setStep(step: StepState, status: StepStatus, message?: string): void {
    this.#run.setStep(step, status, message);
  }

  async #runGroup(group: StepState[]): Promise<void> {
    const todo = group.filter((s) => s.status === 'PENDING' || s.status === 'RUNNING');
    // All of a group must pass: the first failure decides, and the steps still waiting beside it stop
    // waiting (a callback arriving later must not move a target that has gone on).
    const cancel = new AbortController();
    this.#run.waits = AbortSignal.any([this.#deps.signal, cancel.signal]);
    let first: unknown;
    await Promise.all(
      todo.map(async (step) => {
        try {
          await this.#runStep(step);
        } catch (error) {
          first ??= error;
          cancel.abort();
        }
      }),
    );
    this.#run.waits = this.#deps.signal;
    if (first !== undefined) throw first;
  }

  async #runStep(step: StepState): Promise<void> {
    const waits = this.#run.waits;
    if (step.status === 'PENDING') {
      this.#setStep(step, 'RUNNING');
      this.#deps.log(`${step.label}: started`);
      await this.#deps.save();
    }
    let message: string | undefined;
    try {
      await checkPlanned(step, this.#run);
      message = await STEPS[step.kind](step, this.#run);
    } catch (error) {
      if (waits.aborted && !this.#deps.signal.aborted && step.status === 'RUNNING') {
        // A step beside it failed: this one is not waited for any more, and says so.
        this.#setStep(step, 'FAILED', 'not waited for any more: a step running beside it failed');
        await this.#deps.save();
        return;
      }
      if (!(error instanceof StepFailure)) throw error;
      if (step.status === 'RUNNING') {
        this.#setStep(step, 'FAILED', error.message);
        this.#deps.log(`${step.label}: failed: ${error.message}`);
        await this.#deps.save();
      }
      throw error;
    }
    if (step.status !== 'RUNNING') return;
    this.#setStep(step, 'SUCCEEDED', message);
    this.#deps.log(`${step.label}: succeeded${message === undefined ? '' : `: ${message}`}`);
    await this.#deps.save();
  }

  /**
   * Previous versions back at their replicas (and, for blue/green, selected again), a mesh's traffic
   * all on them again, the new one at 0.
   */
  async #rollback(): Promise<void> {
    const target = this.#target;
    const ids = target.rollbackOperationIds;
    const services = blueGreenServices(this.#deps.file, target.name);
    const deadline = new Date(
      this.#deps.now().getTime() + durationMs(this.#deps.file.deploymentConfig.timeout),
    );
    let index = 0;
    for (const w of target.workloads ?? []) {
      for (const old of w.previous)
        await this.#run.send(ids, index++, scaleCall(w.namespace, old.name, old.replicas));
      const live = w.previous[0];
      if (live !== undefined) {
        await this.#run.waitReady(w, live.name, live.replicas, deadline, false);
        if (services !== undefined)
          await this.#run.send(ids, index++, selectCall(services.activeService, w.namespace, live.version));
      }
    }
    // The mesh sends nothing to the new version any more before its pods go.
    for (const call of await this.#trafficBack()) await this.#run.send(ids, index++, call);
    for (const w of target.workloads ?? [])
      await this.#run.send(ids, index++, scaleCall(w.namespace, w.replicaSet, 0));
    this.#deps.log(`rolled back: ${(target.workloads ?? []).map((w) => `${w.replicaSet} at 0`).join(', ')}`);
  }

  /** A mesh's writes that put all traffic back on the previous version (canary weight 0). */
  async #trafficBack(): Promise<WriteCall[]> {
    const traffic = trafficOf(this.#deps.file, this.#target.name);
    if (!meshManaged(traffic)) return [];
    try {
      const back = await trafficWrites(trafficTargetOf(this.#run), traffic, {
        canaryWeight: 0,
        stable: 'previous',
      });
      return back.calls;
    } catch (error) {
      if (error instanceof TrafficError) throw new StepFailure(error.message, false);
      throw error;
    }
  }
}
