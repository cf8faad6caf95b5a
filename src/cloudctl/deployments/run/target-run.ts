// Carries one target of a deployment from where its stored progress says it is: its steps in order
// (steps of one group in parallel), then success; or, when a step fails, failure, and for a failed
// webhook or a new version that does not become ready inside the strategy, the automatic rollback.
// Every wait (a pause, an approval, a webhook's callback, pods getting ready) has its deadline stored,
// so a cloudctl started again waits only for what is left.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRecord } from '../../../lib/is-record.ts';
import { DeploymentError } from '../deployment-errors.ts';
import type { DeploymentFile } from '../deployment-file/deployment-file-schema.ts';
import { durationMs } from '../deployment-file/duration.ts';
import type { ManifestObject } from '../deployment-file/manifest-documents.ts';
import type { Webhook } from '../deployment-file/webhook.ts';
import { renderWebhookRequest } from '../webhook/render-webhook-request.ts';
import type { VendorValues } from '../webhook/vendor-variables.ts';
import type { StepState, TargetState, Workload } from './deployment-progress.ts';
import { checkStepMove, checkTargetMove, type StepStatus, type TargetStatus } from './deployment-state.ts';
import type { Gate, GateKind } from './deployment-store.ts';
import { gateDefinition, stepWeight } from './step-layout.ts';
import {
  namespaceOf,
  selectVersion,
  type VersionContext,
  versionedManifests,
  WORKLOAD_LABEL,
} from './versioned-manifests.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** A step that cannot go on; `rollback` when the target should go back to its previous version. */
export class StepFailure extends Error {
  readonly rollback: boolean;
  constructor(message: string, rollback: boolean) {
    super(message);
    this.name = 'StepFailure';
    this.rollback = rollback;
  }
}

export interface TargetRunDeps {
  deploymentId: string;
  application: string;
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
  operation(ids: string[], index: number, account: string, type: string, payload: unknown): Promise<unknown>;
  /** A read through the agent (nothing to find again after a restart). */
  read(account: string, type: string, payload: unknown): Promise<unknown>;
  gates: {
    open(id: string, stepKey: string, kind: GateKind): Promise<void>;
    /** The gate once decided, or 'expired' at `until`; throws when `signal` aborts. */
    wait(id: string, until: Date | undefined, signal: AbortSignal): Promise<Gate | 'expired'>;
  };
  webhooks: WebhookSender;
  /** The callback URI of a webhook run, from its secret. */
  callbackUri(secret: string): string;
  /** How often readiness is checked. */
  readyPollMs: number;
}

/** The id under which a callback's gate is stored: only the job holding the secret can name it. */
export function callbackGateId(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export class TargetRun {
  readonly #deps: TargetRunDeps;
  /** What ends the waits of the steps running now: cloudctl stopping, or a failure beside them. */
  #waits: AbortSignal;

  constructor(deps: TargetRunDeps) {
    this.#deps = deps;
    this.#waits = deps.signal;
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
    checkStepMove(step.status, status);
    step.status = status;
    if (status === 'RUNNING') step.startedAt = this.#deps.now().toISOString();
    else step.finishedAt = this.#deps.now().toISOString();
    if (message !== undefined) step.message = message;
  }

  async #runGroup(group: StepState[]): Promise<void> {
    const todo = group.filter((s) => s.status === 'PENDING' || s.status === 'RUNNING');
    // All of a group must pass: the first failure decides, and the steps still waiting beside it stop
    // waiting (a callback arriving later must not move a target that has gone on).
    const cancel = new AbortController();
    this.#waits = AbortSignal.any([this.#deps.signal, cancel.signal]);
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
    this.#waits = this.#deps.signal;
    if (first !== undefined) throw first;
  }

  async #runStep(step: StepState): Promise<void> {
    const waits = this.#waits;
    if (step.status === 'PENDING') {
      this.#setStep(step, 'RUNNING');
      this.#deps.log(`${step.label}: started`);
      await this.#deps.save();
    }
    let message: string | undefined;
    try {
      message = await this.#carryOut(step);
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

  async #carryOut(step: StepState): Promise<string | undefined> {
    switch (step.kind) {
      case 'pause':
        return this.#pause(step);
      case 'approval':
        return this.#approval(step);
      case 'webhook':
        return this.#webhook(step);
      case 'deploy':
        return this.#deploy(step);
      case 'setWeight':
        return this.#setWeight(step, stepWeight(this.#deps.file, this.#target.name, step) ?? 0);
      case 'promote':
        return this.#setWeight(step, 100);
      case 'switchTraffic':
        return this.#switchTraffic(step);
      case 'removeOld':
        return this.#removeOld(step);
    }
  }

  // ---- gates ------------------------------------------------------------------------------------

  #definition(step: StepState) {
    const definition = gateDefinition(this.#deps.file, this.#target.name, step);
    if (definition === undefined)
      throw new StepFailure(`${step.key}: no such step in the deployment file`, false);
    return definition;
  }

  /** Failures inside the strategy roll back; before and after the deployment they only fail. */
  #rollsBack(step: StepState): boolean {
    return step.phase === 'strategy';
  }

  async #pause(step: StepState): Promise<string | undefined> {
    const definition = this.#definition(step);
    if (!('pause' in definition) || 'untilApproved' in definition.pause)
      throw new StepFailure('not a timed pause', false);
    if (step.until === undefined) {
      step.until = new Date(this.#deps.now().getTime() + durationMs(definition.pause)).toISOString();
      await this.#deps.save();
    }
    const left = Date.parse(step.until) - this.#deps.now().getTime();
    if (left > 0) await sleep(left, undefined, { signal: this.#waits });
    return undefined;
  }

  async #approval(step: StepState): Promise<string | undefined> {
    const definition = this.#definition(step);
    if (!('pause' in definition) || !('untilApproved' in definition.pause))
      throw new StepFailure('not an approval', false);
    const { approvalExpiration } = definition.pause;
    if (step.gateId === undefined) {
      step.gateId = `${this.#deps.deploymentId}/${step.key}`;
      if (approvalExpiration !== undefined)
        step.until = new Date(this.#deps.now().getTime() + durationMs(approvalExpiration)).toISOString();
      await this.#deps.gates.open(step.gateId, step.key, 'approval');
      await this.#deps.save();
    }
    const gate = await this.#deps.gates.wait(
      step.gateId,
      step.until === undefined ? undefined : new Date(step.until),
      this.#waits,
    );
    if (gate === 'expired') throw new StepFailure('not approved before the approval expired', false);
    const note = gate.message === null || gate.message === '' ? '' : `: ${gate.message}`;
    if (gate.verdict !== true)
      throw new StepFailure(`rejected by ${gate.decidedBy ?? 'someone'}${note}`, false);
    return `approved by ${gate.decidedBy ?? 'someone'}${note}`;
  }

  #vendorValues(webhook: Webhook, callbackUri: string): VendorValues {
    const target = this.#target;
    const workload = target.workloads?.[0];
    const first = this.#deps.manifests.find((m) => isRecord(m.metadata));
    return {
      applicationName: this.#deps.application,
      deploymentId: this.#deps.deploymentId,
      environmentName: target.name,
      ...(workload === undefined ? {} : { replicaSetName: workload.replicaSet }),
      accountName: webhook.agentIdentifier ?? target.account,
      namespace:
        target.namespace ??
        workload?.namespace ??
        (first === undefined ? 'default' : namespaceOf(first, this.#versionContext())),
      callbackUri,
    };
  }

  async #webhook(step: StepState): Promise<string | undefined> {
    const definition = this.#definition(step);
    if (!('runWebhook' in definition)) throw new StepFailure('not a webhook step', false);
    const { name, context } = definition.runWebhook;
    const webhook = this.#deps.file.webhooks.find((w) => w.name === name);
    if (webhook === undefined) throw new StepFailure(`no webhook named '${name}'`, false);
    const rollback = this.#rollsBack(step);
    if (step.sentAt === undefined) {
      // A new secret for every send: one sent before a restart, unanswered, had its own.
      const secret = randomBytes(24).toString('base64url');
      step.gateId = callbackGateId(secret);
      await this.#deps.gates.open(step.gateId, step.key, 'callback');
      await this.#deps.save();
      let status: number;
      try {
        const request = renderWebhookRequest(
          webhook,
          context,
          this.#vendorValues(webhook, this.#deps.callbackUri(secret)),
        );
        ({ status } = await this.#deps.webhooks.send(request, {
          retryCount: webhook.retryCount,
          via:
            webhook.networkMode === 'remoteNetworkAgent'
              ? { mode: 'agent', account: this.#target.account, agentIdentifier: webhook.agentIdentifier }
              : { mode: 'direct' },
        }));
      } catch (error) {
        if (error instanceof DeploymentError)
          throw new StepFailure(`webhook ${name}: ${error.message}`, rollback);
        throw error;
      }
      if (webhook.disableCallback) return `answered ${status}; no callback awaited (disableCallback)`;
      step.sentAt = this.#deps.now().toISOString();
      step.until = new Date(this.#deps.now().getTime() + durationMs(webhook.timeout)).toISOString();
      step.message = `answered ${status}; waiting for the callback`;
      await this.#deps.save();
    }
    const gate = await this.#deps.gates.wait(
      step.gateId ?? '',
      step.until === undefined ? undefined : new Date(step.until),
      this.#waits,
    );
    if (gate === 'expired')
      throw new StepFailure(
        `webhook ${name}: no callback within ${webhook.timeout.duration} ${webhook.timeout.unit}`,
        rollback,
      );
    if (gate.message !== null) {
      step.mdMessage = gate.message;
      this.#deps.log(`webhook ${name} says: ${gate.message}`);
    }
    if (gate.verdict !== true)
      throw new StepFailure(
        `webhook ${name}: the job answered success: false${gate.message === null ? '' : ` (${gate.message})`}`,
        rollback,
      );
    return 'the job answered success: true';
  }

  // ---- rollout ----------------------------------------------------------------------------------

  #versionContext(): VersionContext {
    return {
      application: this.#deps.application,
      deploymentId: this.#deps.deploymentId,
      environment: this.#target.name,
      namespace: this.#target.namespace,
    };
  }

  #strategy() {
    const target = this.#deps.file.targets[this.#target.name];
    const strategy = target === undefined ? undefined : this.#deps.file.strategies[target.strategy];
    if (strategy === undefined) throw new StepFailure(`target ${this.#target.name} has no strategy`, false);
    return strategy;
  }

  async #previousVersions(workload: {
    name: string;
    namespace: string;
    replicaSet: string;
  }): Promise<Workload['previous']> {
    const answer = record(
      await this.#deps.read(this.#target.account, 'list', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        namespace: workload.namespace,
        labelSelector: `${WORKLOAD_LABEL}=${workload.name}`,
      }),
    );
    const items = Array.isArray(answer.items) ? answer.items.map(record) : [];
    return items
      .map((item) => {
        const metadata = record(item.metadata);
        const labels = record(metadata.labels);
        const replicas = record(item.spec).replicas;
        return {
          name: String(metadata.name),
          version:
            typeof labels['deploy.vendor.io/version'] === 'string' ? labels['deploy.vendor.io/version'] : '',
          replicas: typeof replicas === 'number' ? replicas : 0,
        };
      })
      .filter((rs) => rs.name !== workload.replicaSet && rs.replicas > 0)
      .sort((a, b) => b.replicas - a.replicas);
  }

  /** Readiness deadline of a rollout step: the file's deploymentConfig.timeout from the step's start. */
  async #readyDeadline(step: StepState): Promise<Date> {
    if (step.until === undefined) {
      step.until = new Date(
        this.#deps.now().getTime() + durationMs(this.#deps.file.deploymentConfig.timeout),
      ).toISOString();
      await this.#deps.save();
    }
    return new Date(step.until);
  }

  async #waitReady(
    workload: { namespace: string },
    replicaSet: string,
    replicas: number,
    deadline: Date,
    rollback: boolean,
  ) {
    for (;;) {
      const answer = record(
        await this.#deps.read(this.#target.account, 'get', {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          namespace: workload.namespace,
          name: replicaSet,
        }),
      );
      const status = record(record(answer.object).status);
      const ready = typeof status.readyReplicas === 'number' ? status.readyReplicas : 0;
      if (ready >= replicas) return;
      if (this.#deps.now().getTime() >= deadline.getTime())
        throw new StepFailure(
          `ReplicaSet ${workload.namespace}/${replicaSet}: ${ready} of ${replicas} pods ready when deploymentConfig.timeout ran out`,
          rollback,
        );
      await sleep(this.#deps.readyPollMs, undefined, { signal: this.#waits });
    }
  }

  async #scale(
    ids: string[],
    index: number,
    namespace: string,
    name: string,
    replicas: number,
  ): Promise<void> {
    await this.#deps.operation(ids, index, this.#target.account, 'scale', {
      kind: 'ReplicaSet',
      namespace,
      name,
      replicas,
    });
  }

  #skipStrategy(reason: string): void {
    for (const step of this.#target.steps) {
      if (step.phase === 'strategy' && step.status === 'PENDING') this.#setStep(step, 'SKIPPED', reason);
    }
  }

  async #deploy(step: StepState): Promise<string | undefined> {
    const target = this.#target;
    const strategy = this.#strategy();
    const versioned = versionedManifests(this.#deps.manifests, this.#versionContext());
    if (target.workloads === undefined) {
      const workloads: Workload[] = [];
      for (const w of versioned.workloads) {
        workloads.push({
          name: w.name,
          namespace: w.namespace,
          replicaSet: w.replicaSet,
          version: w.version,
          desired: w.desired,
          previous: await this.#previousVersions(w),
        });
      }
      target.workloads = workloads;
      await this.#deps.save();
    }
    const workloads = target.workloads;
    const first = workloads.every((w) => w.previous.length === 0);
    const full = first || 'blueGreen' in strategy;
    let others = versioned.others;
    if ('blueGreen' in strategy) {
      const { activeService, previewService } = strategy.blueGreen;
      const workload = workloads[0];
      if (workload === undefined)
        throw new StepFailure('blue/green needs a Deployment among the manifests', false);
      const isService = (o: ManifestObject, name: string) =>
        o.kind === 'Service' && record(o.metadata).name === name;
      if (!others.some((o) => isService(o, activeService)))
        throw new StepFailure(`activeService ${activeService} is not among the target's manifests`, false);
      // Until the switch the active Service keeps selecting the version live before the run.
      const liveVersion = workload.previous[0]?.version ?? workload.version;
      others = others.map((o) =>
        isService(o, activeService)
          ? selectVersion(o, liveVersion)
          : previewService !== undefined && isService(o, previewService)
            ? selectVersion(o, workload.version)
            : o,
      );
    }
    const replicaSets = versioned.workloads.map((w) => {
      const desired = workloads.find((s) => s.replicaSet === w.replicaSet)?.desired ?? w.desired;
      return { ...w.manifest, spec: { ...record(w.manifest.spec), replicas: full ? desired : 0 } };
    });
    await this.#deps.operation(step.operationIds, 0, target.account, 'deploy', {
      manifests: [...others, ...replicaSets],
    });
    const deadline = await this.#readyDeadline(step);
    for (const w of workloads) await this.#waitReady(w, w.replicaSet, full ? w.desired : 0, deadline, false);
    if (workloads.length === 0) {
      this.#skipStrategy('no Deployment among the manifests: nothing to roll out by steps');
      return `applied ${replicaSets.length + others.length} objects`;
    }
    if (first) {
      this.#skipStrategy('first version of the workload: rolled out in full, nothing to compare with');
      return `first version: ${workloads.map((w) => `${w.replicaSet} at ${w.desired}`).join(', ')}`;
    }
    return `${workloads.map((w) => `${w.replicaSet} at ${full ? w.desired : 0}`).join(', ')}`;
  }

  async #setWeight(step: StepState, weight: number): Promise<string> {
    const deadline = await this.#readyDeadline(step);
    const ids = step.operationIds;
    let index = 0;
    const done: string[] = [];
    for (const w of this.#target.workloads ?? []) {
      const replicas = Math.ceil((w.desired * weight) / 100);
      await this.#scale(ids, index++, w.namespace, w.replicaSet, replicas);
      await this.#waitReady(w, w.replicaSet, replicas, deadline, true);
      // The previous version gives up what the new one took (by replica ratio); older ones go.
      const [live, ...older] = w.previous;
      if (live !== undefined)
        await this.#scale(ids, index++, w.namespace, live.name, Math.max(0, w.desired - replicas));
      for (const old of older) await this.#scale(ids, index++, w.namespace, old.name, 0);
      done.push(`${w.replicaSet} at ${replicas} of ${w.desired}`);
    }
    return done.join(', ');
  }

  async #switchTraffic(step: StepState): Promise<string> {
    const strategy = this.#strategy();
    if (!('blueGreen' in strategy)) throw new StepFailure('switchTraffic belongs to blue/green', false);
    const workload = this.#target.workloads?.[0];
    if (workload === undefined) throw new StepFailure('no workload to switch to', false);
    await this.#selectService(
      step.operationIds,
      0,
      strategy.blueGreen.activeService,
      workload.namespace,
      workload.version,
    );
    return `${strategy.blueGreen.activeService} selects ${workload.replicaSet}`;
  }

  async #selectService(ids: string[], index: number, service: string, namespace: string, version: string) {
    await this.#deps.operation(ids, index, this.#target.account, 'patch', {
      apiVersion: 'v1',
      kind: 'Service',
      namespace,
      name: service,
      patchType: 'merge',
      patch: { spec: { selector: { 'deploy.vendor.io/version': version } } },
    });
  }

  async #removeOld(step: StepState): Promise<string> {
    let index = 0;
    const removed: string[] = [];
    for (const w of this.#target.workloads ?? []) {
      for (const old of w.previous) {
        await this.#scale(step.operationIds, index++, w.namespace, old.name, 0);
        removed.push(old.name);
      }
    }
    return removed.length === 0 ? 'no old version' : `scaled to 0: ${removed.join(', ')}`;
  }

  /** Previous versions back at their replicas (and, for blue/green, selected again), the new one at 0. */
  async #rollback(): Promise<void> {
    const target = this.#target;
    const ids = target.rollbackOperationIds;
    const strategy = this.#strategy();
    const deadline = new Date(
      this.#deps.now().getTime() + durationMs(this.#deps.file.deploymentConfig.timeout),
    );
    let index = 0;
    for (const w of target.workloads ?? []) {
      for (const old of w.previous) await this.#scale(ids, index++, w.namespace, old.name, old.replicas);
      const live = w.previous[0];
      if (live !== undefined) {
        await this.#waitReady(w, live.name, live.replicas, deadline, false);
        if ('blueGreen' in strategy)
          await this.#selectService(
            ids,
            index++,
            strategy.blueGreen.activeService,
            w.namespace,
            live.version,
          );
      }
      await this.#scale(ids, index++, w.namespace, w.replicaSet, 0);
    }
    this.#deps.log(`rolled back: ${(target.workloads ?? []).map((w) => `${w.replicaSet} at 0`).join(', ')}`);
  }
}
