// Drift in words, as /manifests' warnings and /watch's drift events say it: one sentence per manager
// that changed an object cloudctl deployed, naming the paths, the manager (and its subresource, as
// `kubectl scale` writes through `scale`) and when.
import type { Drift, DriftingManager } from '../../contract/index.ts';

/** "spec.replicas changed by kubectl (scale) at 2026-11-28T20:51:07Z, after cloudctl deployed it". */
export function driftSentence(m: DriftingManager): string {
  const more = m.morePaths === 0 ? '' : ` and ${m.morePaths} more path${m.morePaths === 1 ? '' : 's'}`;
  const by = m.subresource === undefined ? m.manager : `${m.manager} (${m.subresource})`;
  // Kubernetes keeps no time for a write through the scale subresource.
  const when = m.time === null ? ' (when is not recorded)' : ` at ${m.time}`;
  return `${m.paths.join(', ')}${more} changed by ${by}${when}, after cloudctl deployed it`;
}

/** One sentence per manager. */
export function driftSentences(drift: Drift | null): string[] {
  return drift === null ? [] : drift.managers.map(driftSentence);
}
