// webhook: sends the file's webhook (from cloudctl or through an agent), then waits for the job's
// callback, whose gate is named by the SHA-256 of a secret sent only in the callback URI. A failure
// inside the strategy rolls the target back. A webhook that waits for its callback carries the plan
// of the next step that writes (`{{vendor.planUri}}`); a success lets that step apply it, guarded.
import { createHash, randomBytes } from 'node:crypto';
import { isRecord } from '../../../../lib/is-record.ts';
import { DeploymentError } from '../../deployment-errors.ts';
import { durationMs } from '../../deployment-file/duration.ts';
import type { VendorValues } from '../../deployment-file/vendor-variables.ts';
import type { Webhook } from '../../deployment-file/webhook.ts';
import { renderWebhookRequest } from '../../webhook/render-webhook-request.ts';
import type { StepState } from '../deployment-progress.ts';
import { namespaceOf } from '../versioned-manifests.ts';
import { planNextWrite } from './gate-plan.ts';
import { type StepContext, StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/** The id under which a callback's gate is stored: only the job holding the secret can name it. */
export function callbackGateId(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function vendorValues(
  run: StepContext,
  webhook: Webhook,
  callbackUri: string,
  planId: string | undefined,
): VendorValues {
  const { target } = run;
  const workload = target.workloads?.[0];
  const first = run.deps.manifests.find((m) => isRecord(m.metadata));
  return {
    applicationName: run.deps.application,
    deploymentId: run.deps.deploymentId,
    environmentName: target.name,
    ...(workload === undefined ? {} : { replicaSetName: workload.replicaSet }),
    accountName: webhook.agentIdentifier ?? target.account,
    namespace:
      target.namespace ??
      workload?.namespace ??
      (first === undefined ? 'default' : namespaceOf(first, run.versionContext())),
    callbackUri,
    // Empty, not missing, without a plan: one template serves gates with and without a next write.
    planUri: planId === undefined || run.deps.planner === undefined ? '' : run.deps.planner.uri(planId),
  };
}

/**
 * Sends the webhook with a new secret (one sent before a restart, unanswered, had its own); answers
 * the step's message when no callback is awaited, or undefined once the wait's deadline is stored.
 */
async function send(
  run: StepContext,
  step: StepState,
  webhook: Webhook,
  context: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const { deps } = run;
  const secret = randomBytes(24).toString('base64url');
  step.gateId = callbackGateId(secret);
  await deps.gates.open(step.gateId, step.key, 'callback');
  await deps.save();
  // Only a webhook whose verdict gates the run shows a plan: the job may read it before it answers.
  // The plan lasts as long as the job may take, so its URI stays good for the whole wait.
  const planId = webhook.disableCallback
    ? undefined
    : await planNextWrite(step, run, durationMs(webhook.timeout));
  let status: number;
  try {
    const request = renderWebhookRequest(
      webhook,
      context,
      vendorValues(run, webhook, deps.callbackUri(secret), planId),
    );
    ({ status } = await deps.webhooks.send(request, {
      retryCount: webhook.retryCount,
      via:
        webhook.networkMode === 'remoteNetworkAgent'
          ? { mode: 'agent', account: run.target.account, agentIdentifier: webhook.agentIdentifier }
          : { mode: 'direct' },
    }));
  } catch (error) {
    if (error instanceof DeploymentError)
      throw new StepFailure(`webhook ${webhook.name}: ${error.message}`, run.rollsBack(step));
    throw error;
  }
  if (webhook.disableCallback) return `answered ${status}; no callback awaited (disableCallback)`;
  step.sentAt = deps.now().toISOString();
  step.until = new Date(deps.now().getTime() + durationMs(webhook.timeout)).toISOString();
  step.message = `answered ${status}; waiting for the callback`;
  await deps.save();
  return undefined;
}

export const webhookStep: StepKind = async (step, run) => {
  const { deps } = run;
  const definition = run.definition(step);
  if (!('runWebhook' in definition)) throw new StepFailure('not a webhook step', false);
  const { name, context } = definition.runWebhook;
  const webhook = deps.file.webhooks.find((w) => w.name === name);
  if (webhook === undefined) throw new StepFailure(`no webhook named '${name}'`, false);
  const rollback = run.rollsBack(step);
  if (step.sentAt === undefined) {
    const answered = await send(run, step, webhook, context);
    if (answered !== undefined) return answered;
  }
  const gate = await deps.gates.wait(
    step.gateId ?? '',
    step.until === undefined ? undefined : new Date(step.until),
    run.waits,
  );
  if (gate === 'expired')
    throw new StepFailure(
      `webhook ${name}: no callback within ${webhook.timeout.duration} ${webhook.timeout.unit}`,
      rollback,
    );
  if (gate.message !== null) {
    step.mdMessage = gate.message;
    deps.log(`webhook ${name} says: ${gate.message}`);
  }
  if (gate.verdict !== true)
    throw new StepFailure(
      `webhook ${name}: the job answered success: false${gate.message === null ? '' : ` (${gate.message})`}`,
      rollback,
    );
  return 'the job answered success: true';
};
