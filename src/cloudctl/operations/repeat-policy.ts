// Which operations cloudctl may send again when the agent session that took one ends before its
// result is reported (an agent SIGKILLed, its pod drained, a `helm upgrade`). A repeat carries the same
// operation id: an agent process that still runs it answers with that run's result (its executor
// dedupes by id), and a new process runs it again, which Kubernetes' writes make harmless for applies,
// deletes, scales, patches, reads and most rollout actions. The rest would act twice: they go again
// as resume-only, which an agent that never received them answers with NOT_STARTED.
import type { OperationCall } from '../../contract/index.ts';

/** Why the operation must not be sent twice, or undefined when a repeat is harmless. */
export function unrepeatableReason(call: OperationCall): string | undefined {
  switch (call.type) {
    case 'runJob':
      return 'a second run would start a second Job (its name may be generated), so it is not started again';
    case 'httpRequest':
      return 'an HTTP request may not be safe to send twice, so it is not started again';
    case 'serviceProxy':
      return call.payload.method === 'GET' || call.payload.method === 'HEAD'
        ? undefined
        : 'a request to a Service other than GET or HEAD may not be safe to send twice, so it is not started again';
    case 'rollout':
      return call.payload.action === 'undo' && call.payload.toRevision === undefined
        ? 'an undo to the previous revision done twice goes back two revisions, so it is not started again'
        : undefined;
    default:
      return undefined;
  }
}
