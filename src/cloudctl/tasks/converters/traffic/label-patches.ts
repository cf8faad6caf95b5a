// The label changes that put pods behind a Service or take them out: a Service selects pods by its
// selector, so enabling sets the selector's labels on the pod template and on each pod, and disabling
// removes those label keys. JSON merge patches, not the JSON patches Spinnaker sends: a merge patch
// that removes an absent label or sets a present one succeeds, where a JSON patch `remove` of a
// label the cache had not yet seen gone fails the whole operation.

/** Enable sets the labels; disable removes their keys. */
export type TrafficAction = 'enable' | 'disable';

function labelChanges(action: TrafficAction, labels: Readonly<Record<string, string>>) {
  const changes: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(labels)) changes[key] = action === 'enable' ? value : null;
  return changes;
}

/** The merge patch of a workload's pod template labels. */
export function templateLabelPatch(action: TrafficAction, labels: Readonly<Record<string, string>>) {
  return { spec: { template: { metadata: { labels: labelChanges(action, labels) } } } };
}

/** The merge patch of an object's own labels (a pod's). */
export function objectLabelPatch(action: TrafficAction, labels: Readonly<Record<string, string>>) {
  return { metadata: { labels: labelChanges(action, labels) } };
}
