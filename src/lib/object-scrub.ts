// Makes an object fit to leave the cluster, whether the agent's watch sends it or cloudctl stores a
// copy read on demand: Secret values are blanked (keys are kept, so a user sees what a Secret holds
// without its contents), including the copy kubectl keeps in the last-applied annotation, and
// managedFields are dropped (bookkeeping, often a third of an object's size).
import { isRecord } from './is-record.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function scrubObject(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  delete metadata.managedFields;
  const out: Record<string, unknown> = { ...object, metadata };
  if (object.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === undefined)) {
    for (const field of ['data', 'stringData'] as const) {
      const values = object[field];
      if (isRecord(values)) out[field] = Object.fromEntries(Object.keys(values).map((k) => [k, '']));
    }
    if (isRecord(metadata.annotations) && LAST_APPLIED in metadata.annotations) {
      metadata.annotations = { ...metadata.annotations, [LAST_APPLIED]: '' };
    }
  }
  return out;
}
