// approval: a pause until someone decides, through a gate stored in the database (with the
// approval's expiry, when the file sets one).
import { durationMs } from '../../deployment-file/duration.ts';
import { StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

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
  }
  const gate = await deps.gates.wait(
    step.gateId,
    step.until === undefined ? undefined : new Date(step.until),
    run.waits,
  );
  if (gate === 'expired') throw new StepFailure('not approved before the approval expired', false);
  const note = gate.message === null || gate.message === '' ? '' : `: ${gate.message}`;
  if (gate.verdict !== true)
    throw new StepFailure(`rejected by ${gate.decidedBy ?? 'someone'}${note}`, false);
  return `approved by ${gate.decidedBy ?? 'someone'}${note}`;
};
