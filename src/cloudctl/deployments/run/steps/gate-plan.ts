// The plan a gate shows: when an approval opens, or a webhook whose callback is awaited is about to
// be sent, the target's next step that writes to the cluster is planned (its calls dry-run by the
// plans feature, diffed against the live objects, stored). The plan's id goes on the gate (the
// deployment's view and `{{vendor.planUri}}` show it); the versions it saw go on the planned step as
// its guard. When that step runs it first checks it would still send exactly the planned calls, then
// sends each apply or patch with the versions seen, so the agent refuses an object moved since: what
// was approved is what is applied, or nothing is (scales excepted, see heldTo).
import { createHash } from 'node:crypto';
import type { ExpectedVersion } from '../../../../contract/index.ts';
import type { WriteCall } from '../deployment-planner.ts';
import type { StepState } from '../deployment-progress.ts';
import { type StepContext, StepFailure } from './step-context.ts';
import { STEP_WRITES } from './step-writes.ts';

/** The first step after the gate, still to run, that writes to the cluster. */
function nextWriter(run: StepContext, gate: StepState): StepState | undefined {
  const steps = run.target.steps;
  return steps
    .slice(steps.indexOf(gate) + 1)
    .find((s) => s.status === 'PENDING' && STEP_WRITES[s.kind] !== undefined);
}

/**
 * The versions a call is held to. A scale is not: it sets one number, and a ReplicaSet's
 * resourceVersion moves with its pods' status (the controller writes it), so holding a scale to it
 * would fail rollouts nobody touched. Applies and Service patches, which write what people edit, are.
 */
function heldTo(call: WriteCall, seen: ExpectedVersion[] | undefined): ExpectedVersion[] {
  return call.type === 'scale' ? [] : (seen ?? []);
}

const SCALES_UNGUARDED =
  "its scales set the replicas shown but are not held to the ReplicaSets' versions, which move with their pods' status";

/** What identifies a step's calls: equal digests, equal calls (built by the same code, keys in order). */
export function callsDigest(calls: ReadonlyArray<WriteCall>): string {
  return createHash('sha256').update(JSON.stringify(calls)).digest('hex');
}

/**
 * Plans the step the gate opens onto; answers the plan's id, or undefined when nothing writes after
 * the gate, cloudctl runs without plans, or the plan could not be made. A plan that cannot be made
 * (the agent away, say) leaves the gate unplanned, as gates were before plans: the gate still works,
 * and its message and the log say why there is no plan.
 */
export async function planNextWrite(
  gate: StepState,
  run: StepContext,
  expireAfterMs?: number,
): Promise<string | undefined> {
  const { deps } = run;
  const next = nextWriter(run, gate);
  const writesOf = next === undefined ? undefined : STEP_WRITES[next.kind];
  if (deps.planner === undefined || next === undefined || writesOf === undefined) return undefined;
  try {
    const writes = await writesOf(next, run);
    if (writes.calls.length === 0) return undefined;
    const later = run.target.steps
      .slice(run.target.steps.indexOf(next) + 1)
      .filter((s) => s.status === 'PENDING' && STEP_WRITES[s.kind] !== undefined);
    const plan = await deps.planner.plan({
      user: deps.createdBy,
      calls: writes.calls.map((call) => ({
        account: run.target.account,
        name: next.kind,
        description: `${run.target.name}: ${next.label} (${next.key})`,
        call,
      })),
      unknown: [
        ...writes.unknown,
        ...(writes.calls.some((c) => c.type === 'scale') ? [`${next.label}: ${SCALES_UNGUARDED}`] : []),
        ...(later.length === 0
          ? []
          : [`the steps after ${next.label} (${later.map((s) => s.label).join(', ')}): not planned here`]),
      ],
      ...(expireAfterMs === undefined ? {} : { expireAfterMs }),
      subject: { kind: 'gate', deploymentId: deps.deploymentId, stepKey: gate.key },
    });
    const { id, expiresAt } = plan.record;
    gate.plan = { id, stepKey: next.key, expiresAt };
    const expect = writes.calls.map((call, i) => heldTo(call, plan.expect[i]));
    next.guard = { planId: id, digest: callsDigest(writes.calls), expect };
    const { refused, forbidden } = plan.record.summary;
    deps.log(
      `${gate.label}: planned ${next.label} (plan ${id}${refused + forbidden === 0 ? '' : `; ${refused} object(s) refused by the dry run, ${forbidden} not permitted`})`,
    );
    await deps.save();
    return id;
  } catch (error) {
    if (run.waits.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    delete gate.plan;
    delete next.guard;
    gate.message = `no plan of ${next.label}: ${reason}`;
    deps.log(`${gate.label}: ${next.label} could not be planned: ${reason}`);
    await deps.save();
    return undefined;
  }
}

/**
 * Before a planned step's first write: it must still send what was planned. Its calls depend on the
 * workloads' versions (read again for a deploy); if they differ, the approval was of something else.
 */
export async function checkPlanned(step: StepState, run: StepContext): Promise<void> {
  const guard = step.guard;
  const writesOf = STEP_WRITES[step.kind];
  if (guard === undefined || writesOf === undefined || step.operationIds.length > 0) return;
  const { calls } = await writesOf(step, run);
  if (callsDigest(calls) !== guard.digest)
    throw new StepFailure(
      `${step.label} would now send other writes than plan ${guard.planId} showed (the workload's versions changed since it was planned); nothing was written: deploy again for a new plan`,
      false,
    );
  // The plan now reads `applied` by this deployment, so nobody applies it a second time elsewhere.
  const { deploymentId } = run.deps;
  await run.deps.planner?.applied(
    guard.planId,
    deploymentId,
    `deployment ${deploymentId} (its gate was passed)`,
  );
}
