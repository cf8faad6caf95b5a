// A plan's answer from its planner's drafts: each object's writes reviewed against the agent's own
// identity (access-review.ts), its live and planned forms shown as a plan shows them (secret-digest.ts,
// one key for the whole answer), and the messages kept free of Secret values.
import type { PlannedObject } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { AccountCluster } from '../../accounts/index.ts';
import { reviewAccess } from './access-review.ts';
import type { ObjectDraft, PlanDraft, PlanResult } from './object-draft.ts';
import { createPlanView, type PlanView } from './secret-digest.ts';

function resourceVersionOf(object: Record<string, unknown> | null): string | null {
  const metadata = object !== null && isRecord(object.metadata) ? object.metadata : {};
  return typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : null;
}

function plannedObject(draft: ObjectDraft, access: PlannedObject['access'], view: PlanView): PlannedObject {
  const sources = [draft.live, draft.planned, draft.given];
  const redact = (text: string) => view.redact(text, sources);
  const { ref, dryRun } = draft;
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
    name: ref.name,
    action: draft.action,
    resourceVersion: resourceVersionOf(draft.live),
    live: draft.live === null ? null : view.show(draft.live),
    planned: draft.planned === null ? null : view.show(draft.planned),
    dryRun: { ...dryRun, ...(dryRun.message === undefined ? {} : { message: redact(dryRun.message) }) },
    access,
    unknown: draft.unknown.map(redact),
  };
}

export async function assemblePlan(
  draft: PlanDraft,
  cluster: AccountCluster,
  signal?: AbortSignal,
): Promise<PlanResult> {
  const access = await reviewAccess(
    cluster,
    draft.objects.map((o) => o.access),
    signal,
  );
  const view = createPlanView();
  return {
    objects: draft.objects.map((o, i) => plannedObject(o, access[i] ?? [], view)),
    unknown: draft.unknown,
  };
}
