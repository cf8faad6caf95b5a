// One step of a plan as the record shows it: what cloudctl prepared (the manifests as they would be
// applied, Secret values blanked, and the artifacts bound), and per object the agent's dry run turned
// into an action, a field-level diff (plan-diff.ts) and the API server's and the authorizer's verdicts.
// A step the agent cannot dry-run (a read, an HTTP request) is listed with what is not known of it.
import { z } from 'zod';
import type { OperationResult } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { scrubObject } from '../../lib/object-scrub.ts';
import type { TaskStep } from '../tasks/index.ts';
import { planDiff } from './plan-diff.ts';
import type { PlannedObjectRecord, PlannedOperation, PlanRecord } from './plan-record.ts';

/** The artifacts a converter bound (a deploy's `details`); other steps bind none. */
const boundArtifactsSchema = z.object({ boundArtifacts: z.array(z.unknown()) });

/**
 * An object's identity within a plan (its account's cluster and its reference), to notice a later
 * step touching what an earlier one changes, and to guard each object once.
 */
export function objectKey(
  account: string,
  object: {
    apiVersion: string;
    kind: string;
    namespace?: string;
    name: string;
  },
): string {
  return `${account}\n${object.apiVersion}/${object.kind}/${object.namespace ?? ''}/${object.name}`;
}

/** The manifests a step would apply, as anyone allowed to read the plan may see them. */
function preparedManifests(step: TaskStep): Record<string, unknown>[] {
  if (step.type === 'deploy') return step.payload.manifests.filter(isRecord).map(scrubObject);
  if (step.type === 'runJob') return [scrubObject(step.payload.manifest)];
  return [];
}

function prepared(step: TaskStep): PlannedOperation['prepared'] {
  const bound = boundArtifactsSchema.safeParse(step.details);
  return {
    manifests: preparedManifests(step),
    boundArtifacts: bound.success ? bound.data.boundArtifacts : [],
  };
}

function heading(step: TaskStep): Pick<PlannedOperation, 'name' | 'account' | 'description'> {
  return { name: step.name, account: step.account, description: step.description };
}

/** A step whose type the agent does not dry-run: what it prepares, and that its effect is not planned. */
export function unplannedOperation(step: TaskStep): PlannedOperation {
  return {
    ...heading(step),
    prepared: prepared(step),
    objects: [],
    unknown: [`${step.type} is not planned: it reads and writes no object a dry run could show`],
  };
}

/**
 * A planned step: each object the agent dry-ran, its diff against the live object, and `unchanged`
 * for an update that changes no field. `touched` holds the objects earlier steps of the plan change:
 * this step was planned against the live object, before them.
 */
export function plannedOperation(
  step: TaskStep,
  result: OperationResult<'plan'>,
  touched: ReadonlySet<string>,
): PlannedOperation {
  const objects = result.objects.map((object): PlannedObjectRecord => {
    const diff = planDiff(object.live, object.planned);
    const action = object.action === 'update' && diff.length === 0 ? 'unchanged' : object.action;
    const earlier = touched.has(objectKey(step.account, object))
      ? ['planned against the live object: an earlier step of this plan changes it first']
      : [];
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      ...(object.namespace === undefined ? {} : { namespace: object.namespace }),
      name: object.name,
      action,
      resourceVersion: object.resourceVersion,
      diff,
      dryRun: object.dryRun,
      access: object.access,
      unknown: [...object.unknown, ...earlier],
    };
  });
  return { ...heading(step), prepared: prepared(step), objects, unknown: result.unknown };
}

/** The counts a reader looks at first. */
export function planSummary(operations: readonly PlannedOperation[]): PlanRecord['summary'] {
  const summary = { create: 0, update: 0, unchanged: 0, delete: 0, refused: 0, forbidden: 0 };
  for (const object of operations.flatMap((o) => o.objects)) {
    if (object.action !== 'none') summary[object.action]++;
    if (!object.dryRun.allowed) summary.refused++;
    if (object.access.some((check) => !check.allowed)) summary.forbidden++;
  }
  return summary;
}
