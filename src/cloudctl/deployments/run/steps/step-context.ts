// What every step kind of a target's run shares: the run's dependencies, the signal that ends its
// waits, and the moves, gates, readiness checks and agent operations several kinds (and the
// rollback) use. One per target run; a step kind is a function of a step and this context.
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ExpectedVersion,
  OperationPayload,
  OperationResult,
  OperationType,
} from '../../../../contract/index.ts';
import { CodedError } from '../../../../lib/coded-error.ts';
import { isRecord } from '../../../../lib/is-record.ts';
import type { PreviewLinks } from '../../../previews/index.ts';
import type { DeploymentFile } from '../../deployment-file/deployment-file-schema.ts';
import { durationMs } from '../../deployment-file/duration.ts';
import type { ManifestObject } from '../../deployment-file/manifest-documents.ts';
import type { MetricProviders } from '../analysis/metric-providers.ts';
import type { DeploymentPlanner, WriteCall } from '../deployment-planner.ts';
import type { StepState, TargetState } from '../deployment-progress.ts';
import { checkStepMove, type StepStatus } from '../deployment-state.ts';
import type { Gate, GateKind } from '../deployment-store.ts';
import { gateDefinition } from '../step-layout.ts';
import type { VersionContext } from '../versioned-manifests.ts';
import type { WebhookSender } from '../webhook-sender.ts';

/** A step that cannot go on; `rollback` when the target should go back to its previous version. */
export class StepFailure extends CodedError<'STEP_FAILED'> {
  readonly rollback: boolean;
  constructor(message: string, rollback: boolean) {
    super('STEP_FAILED', message);
    this.rollback = rollback;
  }
}

export interface TargetRunDeps {
  deploymentId: string;
  application: string;
  /** Who submitted the deployment: the plans of its gates are made for them. */
  createdBy: string;
  file: DeploymentFile;
  /** The target's objects from `manifests[]`. */
  manifests: readonly ManifestObject[];
  target: TargetState;
  save(): Promise<void>;
  log(message: string): void;
  now(): Date;
  /** Aborted when cloudctl stops: the run ends where it is, for the next process to carry on. */
  signal: AbortSignal;
  /** Sends an agent operation whose id is kept in `ids[index]` (stored before sending). */
  operation<T extends OperationType>(
    ids: string[],
    index: number,
    account: string,
    type: T,
    payload: OperationPayload<T>,
  ): Promise<OperationResult<T>>;
  /** A read through the agent (nothing to find again after a restart). */
  read<T extends OperationType>(
    account: string,
    type: T,
    payload: OperationPayload<T>,
  ): Promise<OperationResult<T>>;
  gates: {
    open(id: string, stepKey: string, kind: GateKind): Promise<void>;
    /** The gate once decided, or 'expired' at `until`; throws when `signal` aborts. */
    wait(id: string, until: Date | undefined, signal: AbortSignal): Promise<Gate | 'expired'>;
  };
  webhooks: WebhookSender;
  /** The callback URI of a webhook run, from its secret. */
  callbackUri(secret: string): string;
  /** Plans what a gate opens onto; absent where cloudctl runs without plans (gates then plan nothing). */
  planner?: DeploymentPlanner | undefined;
  /** How often readiness is checked. */
  readyPollMs: number;
  /** The metric providers of cloudctl's config that analysis steps query. */
  metricProviders: MetricProviders;
  /** Opens the preview URLs of exposeServices steps. */
  previews: Pick<PreviewLinks, 'open'>;
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export class StepContext {
  readonly deps: TargetRunDeps;
  /** What ends the waits of the steps running now: cloudctl stopping, or a failure beside them. */
  waits: AbortSignal;

  constructor(deps: TargetRunDeps) {
    this.deps = deps;
    this.waits = deps.signal;
  }

  get target(): TargetState {
    return this.deps.target;
  }

  setStep(step: StepState, status: StepStatus, message?: string): void {
    checkStepMove(step.status, status);
    step.status = status;
    if (status === 'RUNNING') step.startedAt = this.deps.now().toISOString();
    else step.finishedAt = this.deps.now().toISOString();
    if (message !== undefined) step.message = message;
  }

  // ---- gates ------------------------------------------------------------------------------------

  definition(step: StepState) {
    const definition = gateDefinition(this.deps.file, this.target.name, step);
    if (definition === undefined)
      throw new StepFailure(`${step.key}: no such step in the deployment file`, false);
    return definition;
  }

  /** Failures inside the strategy roll back; before and after the deployment they only fail. */
  rollsBack(step: StepState): boolean {
    return step.phase === 'strategy';
  }

  // ---- rollout ----------------------------------------------------------------------------------

  versionContext(): VersionContext {
    return {
      application: this.deps.application,
      deploymentId: this.deps.deploymentId,
      environment: this.target.name,
      namespace: this.target.namespace,
    };
  }

  strategy() {
    const target = this.deps.file.targets[this.target.name];
    const strategy = target === undefined ? undefined : this.deps.file.strategies[target.strategy];
    if (strategy === undefined) throw new StepFailure(`target ${this.target.name} has no strategy`, false);
    return strategy;
  }

  /** Readiness deadline of a rollout step: the file's deploymentConfig.timeout from the step's start. */
  async readyDeadline(step: StepState): Promise<Date> {
    if (step.until === undefined) {
      step.until = new Date(
        this.deps.now().getTime() + durationMs(this.deps.file.deploymentConfig.timeout),
      ).toISOString();
      await this.deps.save();
    }
    return new Date(step.until);
  }

  async waitReady(
    workload: { namespace: string },
    replicaSet: string,
    replicas: number,
    deadline: Date,
    rollback: boolean,
  ) {
    for (;;) {
      const answer = record(
        await this.deps.read(this.target.account, 'get', {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          namespace: workload.namespace,
          name: replicaSet,
        }),
      );
      const status = record(record(answer.object).status);
      const ready = typeof status.readyReplicas === 'number' ? status.readyReplicas : 0;
      if (ready >= replicas) return;
      if (this.deps.now().getTime() >= deadline.getTime())
        throw new StepFailure(
          `ReplicaSet ${workload.namespace}/${replicaSet}: ${ready} of ${replicas} pods ready when deploymentConfig.timeout ran out`,
          rollback,
        );
      await sleep(this.deps.readyPollMs, undefined, { signal: this.waits });
    }
  }

  /**
   * Sends the step's `index`-th write. Under a plan (a gate planned the step) it carries the versions
   * the plan saw of its objects, so the agent writes nothing if one moved since (PRECONDITION_FAILED).
   */
  async write(step: StepState, index: number, call: WriteCall): Promise<void> {
    await this.#send(step.operationIds, index, call, step.guard?.expect[index]);
  }

  /** A rollback's write: it belongs to no step and no plan, so it is never guarded. */
  async send(ids: string[], index: number, call: WriteCall): Promise<void> {
    await this.#send(ids, index, call, undefined);
  }

  async #send(ids: string[], index: number, call: WriteCall, expect: ExpectedVersion[] | undefined) {
    const account = this.target.account;
    const guarded = expect === undefined ? {} : { expect };
    switch (call.type) {
      case 'deploy':
        await this.deps.operation(ids, index, account, 'deploy', { ...call.payload, ...guarded });
        return;
      case 'scale':
        await this.deps.operation(ids, index, account, 'scale', { ...call.payload, ...guarded });
        return;
      case 'patch':
        await this.deps.operation(ids, index, account, 'patch', { ...call.payload, ...guarded });
        return;
    }
  }
}

/** The write that scales a version to `replicas`. */
export function scaleCall(namespace: string, name: string, replicas: number): WriteCall {
  return { type: 'scale', payload: { kind: 'ReplicaSet', namespace, name, replicas } };
}

/** The write that makes a Service select one version. */
export function selectCall(service: string, namespace: string, version: string): WriteCall {
  return {
    type: 'patch',
    payload: {
      apiVersion: 'v1',
      kind: 'Service',
      namespace,
      name: service,
      patchType: 'merge',
      patch: { spec: { selector: { 'deploy.vendor.io/version': version } } },
    },
  };
}
