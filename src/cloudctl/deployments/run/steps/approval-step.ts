// approval: a pause until someone decides, through a gate stored in the database (with the
// approval's expiry, when the file sets one). It shows the plan of the next step that writes
// (gate-plan.ts); a plan that expires while the approval waits is made again, so the diff people
// approve is never older than a plan's expiry, and approving applies that plan, guarded.
import { durationMs } from '../../deployment-file/duration.ts';
import { planNextWrite } from './gate-plan.ts';
import { StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/** The earlier of two optional moments. */
function earliest(a: string | undefined, b: string | undefined): Date | undefined {
  const times = [a, b].filter((t) => t !== undefined).map((t) => new Date(t).getTime());
  return times.length === 0 ? undefined : new Date(Math.min(...times));
}

export const approvalStep: StepKind = async (step, run) => {
  const { deps } = run;
  const definition = run.definition(step);
  if (!('pause' in definition) || !('untilApproved' in definition.pause))
    throw new StepFailure('not an approval', false);
  const { approvalExpiration } = definition.pause;
  if (step.gateId === undefined) {
    step.gateId = `${deps.deploymentId}/${step.key}`;
    if (approvalExpiration !== undefined)
      step.until = new Date(deps.now().getTime() + durationMs(approvalExpiration)).toISOString();
    await deps.gates.open(step.gateId, step.key, 'approval');
    await deps.save();
    await planNextWrite(step, run);
  }
  for (;;) {
    const gate = await deps.gates.wait(step.gateId, earliest(step.until, step.plan?.expiresAt), run.waits);
    if (gate !== 'expired') {
      const note = gate.message === null || gate.message === '' ? '' : `: ${gate.message}`;
      if (gate.verdict !== true)
        throw new StepFailure(`rejected by ${gate.decidedBy ?? 'someone'}${note}`, false);
      return `approved by ${gate.decidedBy ?? 'someone'}${note}${step.plan === undefined ? '' : ` (plan ${step.plan.id})`}`;
    }
    if (step.until !== undefined && deps.now().getTime() >= new Date(step.until).getTime())
      throw new StepFailure('not approved before the approval expired', false);
    // The plan expired, not the approval: plan again and keep waiting (the approve route refuses an
    // expired plan meanwhile, so nobody approves a diff older than its expiry).
    await planNextWrite(step, run);
  }
};
