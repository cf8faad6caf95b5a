// A target's mesh traffic: the writes that put every smi and istio entry naming the target at a
// position (setWeight, promotion, rollback). The steps that move weights and the rollback call this;
// the entries themselves come from the deployment file (trafficOf).
import type { OperationPayload, OperationResult } from '../../../../contract/index.ts';
import type { ManifestObject } from '../../deployment-file/manifest-documents.ts';
import type { TargetTraffic } from '../../deployment-file/traffic-management.ts';
import type { TargetState } from '../deployment-progress.ts';
import { istioWrites } from './istio-traffic.ts';
import { smiWrites } from './smi-traffic.ts';
import type { TrafficPosition, TrafficTarget, TrafficWrites } from './traffic-position.ts';

export { ISTIO_API } from './istio-traffic.ts';
export { TRAFFIC_SPLIT_API } from './smi-traffic.ts';
export {
  TrafficError,
  type TrafficPosition,
  type TrafficTarget,
  type TrafficWrites,
} from './traffic-position.ts';

/** Each entry's writes in file order (smi, then istio), so a step's operation indices stay stable. */
export async function trafficWrites(
  target: TrafficTarget,
  traffic: TargetTraffic,
  position: TrafficPosition,
): Promise<TrafficWrites> {
  const parts: TrafficWrites[] = [];
  for (const entry of traffic.smi) parts.push(await smiWrites(target, entry, position));
  for (const entry of traffic.istio) parts.push(await istioWrites(target, entry, position));
  return { calls: parts.flatMap((p) => p.calls), said: parts.flatMap((p) => p.said) };
}

/** What trafficTargetOf reads of a target's run (a step's context has it). */
export interface TrafficRun {
  deps: {
    application: string;
    manifests: readonly ManifestObject[];
    read(account: string, type: 'get', payload: OperationPayload<'get'>): Promise<OperationResult<'get'>>;
  };
  target: TargetState;
}

export function trafficTargetOf(run: TrafficRun): TrafficTarget {
  const { target } = run;
  const workloads = target.workloads ?? [];
  return {
    application: run.deps.application,
    name: target.name,
    namespace: target.namespace ?? workloads[0]?.namespace ?? 'default',
    workloads,
    manifests: run.deps.manifests,
    get: async (ref) => (await run.deps.read(target.account, 'get', ref)).object ?? undefined,
  };
}
