// Every `runWebhook` step of a raw deployment file, wherever the spec lets one run: a target's
// `beforeDeployment` and `afterDeployment`, a canary step, a blue/green `redirectTrafficAfter`.
// Raw, so that name checks run even when other parts of the file are malformed.
import { isRecord } from '../../../lib/is-record.ts';
import type { KeyPath } from '../../../lib/yaml-source.ts';

export interface WebhookStepSite {
  /** Path of the step's `runWebhook` map. */
  path: KeyPath;
  name: unknown;
  context: unknown;
}

function entries(value: unknown): Array<[string, unknown]> {
  return isRecord(value) ? Object.entries(value) : [];
}

function stepsAt(list: unknown, path: KeyPath, out: WebhookStepSite[]) {
  if (!Array.isArray(list)) return;
  list.forEach((step, index) => {
    if (isRecord(step) && isRecord(step.runWebhook))
      out.push({
        path: [...path, index, 'runWebhook'],
        name: step.runWebhook.name,
        context: step.runWebhook.context,
      });
  });
}

export function webhookSteps(raw: Record<string, unknown>): WebhookStepSite[] {
  const out: WebhookStepSite[] = [];
  for (const [name, target] of entries(raw.targets)) {
    if (!isRecord(target) || !isRecord(target.constraints)) continue;
    for (const when of ['beforeDeployment', 'afterDeployment'])
      stepsAt(target.constraints[when], ['targets', name, 'constraints', when], out);
  }
  for (const [name, strategy] of entries(raw.strategies)) {
    if (!isRecord(strategy)) continue;
    if (isRecord(strategy.canary))
      stepsAt(strategy.canary.steps, ['strategies', name, 'canary', 'steps'], out);
    if (isRecord(strategy.blueGreen))
      stepsAt(
        strategy.blueGreen.redirectTrafficAfter,
        ['strategies', name, 'blueGreen', 'redirectTrafficAfter'],
        out,
      );
  }
  return out;
}
