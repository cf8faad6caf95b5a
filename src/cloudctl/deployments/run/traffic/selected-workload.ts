// Which of the target's workloads a Service steers: the one whose pods (its Deployment's pod
// template labels in the manifests) its selector matches. A mesh's weights move between the versions
// of that workload only, so a selector matching none, or several, is said rather than guessed.
import type { Workload } from '../deployment-progress.ts';
import { record, stringMap } from './mesh-object.ts';
import { TrafficError, type TrafficTarget } from './traffic-position.ts';

function podLabels(target: TrafficTarget, workload: Workload): Record<string, string> {
  const deployment = target.manifests.find(
    (o) => o.kind === 'Deployment' && record(o.metadata).name === workload.name,
  );
  return stringMap(record(record(record(deployment?.spec).template).metadata).labels);
}

function describe(selector: Record<string, string>): string {
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

export function selectedWorkload(
  target: TrafficTarget,
  selector: Record<string, string>,
  what: string,
): Workload {
  if (Object.keys(selector).length === 0)
    throw new TrafficError(
      `${what} has no selector, so no version of a workload can be told apart behind it`,
    );
  const matching = target.workloads.filter((w) => {
    const labels = podLabels(target, w);
    return Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
  const [only, ...more] = matching;
  if (only !== undefined && more.length === 0) return only;
  const names = target.workloads.map((w) => w.name).join(', ');
  throw new TrafficError(
    only === undefined
      ? `${what} selects ${describe(selector)}, which the pods of no Deployment among the manifests carry (${names})`
      : `${what} selects ${describe(selector)}, which the pods of ${matching.map((w) => w.name).join(' and ')} all carry: one Service steers one workload`,
  );
}

/** The version the stable side serves at `stable`, or undefined before there is a previous one. */
export function stableVersion(workload: Workload, stable: 'previous' | 'new'): string | undefined {
  return stable === 'new' ? workload.version : workload.previous[0]?.version;
}
