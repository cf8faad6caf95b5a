// SMI: the root Service clients call stays as the user wrote it; cloudctl writes two Services beside
// it with the root's ports and selector, each narrowed to one version by its version label (the
// canary, `<root>-canary` unless named, selects the new version; `<root>-stable` the version the
// stable side serves), and the TrafficSplit (`<root>` unless named) on the root with those two as
// backends, weighted. A separate stable Service, not the root, is the second backend: the root's own
// selector matches both versions' pods, so as a backend it would carry canary traffic beyond its weight.
import type { SmiEntry } from '../../deployment-file/traffic-management.ts';
import { VERSION_LABEL } from '../versioned-manifests.ts';
import { applyCall, record, stringMap } from './mesh-object.ts';
import { selectedWorkload, stableVersion } from './selected-workload.ts';
import {
  TrafficError,
  type TrafficPosition,
  type TrafficTarget,
  type TrafficWrites,
} from './traffic-position.ts';

export const TRAFFIC_SPLIT_API = 'split.smi-spec.io/v1alpha2';

/** The Service fields a copy keeps: what routes to pods, not what the API server allocated. */
function portsOf(spec: Record<string, unknown>): unknown[] {
  const ports = Array.isArray(spec.ports) ? spec.ports.map(record) : [];
  return ports.map(({ name, protocol, port, targetPort, appProtocol }) =>
    Object.fromEntries(
      Object.entries({ name, protocol, port, targetPort, appProtocol }).filter(([, v]) => v !== undefined),
    ),
  );
}

export async function smiWrites(
  target: TrafficTarget,
  entry: SmiEntry,
  position: TrafficPosition,
): Promise<TrafficWrites> {
  const { namespace } = target;
  const root = entry.rootServiceName;
  const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', namespace, name });
  const live = await target.get(service(root));
  if (live === undefined)
    throw new TrafficError(
      `Service ${namespace}/${root} (trafficManagement smi rootServiceName) does not exist`,
    );
  const spec = record(live.spec);
  const selector = stringMap(spec.selector);
  const workload = selectedWorkload(target, selector, `Service ${namespace}/${root}`);
  const stable = stableVersion(workload, position.stable);
  if (stable === undefined) return { calls: [], said: [] };
  const canaryName = entry.canaryServiceName ?? `${root}-canary`;
  const stableName = `${root}-stable`;
  const ports = portsOf(spec);
  const selecting = (version: string) => ({ selector: { ...selector, [VERSION_LABEL]: version }, ports });
  const canaryWeight = position.canaryWeight;
  const split = {
    apiVersion: TRAFFIC_SPLIT_API,
    kind: 'TrafficSplit',
    namespace,
    name: entry.trafficSplitName ?? root,
  };
  return {
    calls: [
      applyCall(target, service(canaryName), selecting(workload.version)),
      applyCall(target, service(stableName), selecting(stable)),
      applyCall(target, split, {
        service: root,
        backends: [
          { service: stableName, weight: 100 - canaryWeight },
          { service: canaryName, weight: canaryWeight },
        ],
      }),
    ],
    said: [
      `TrafficSplit ${split.name}: ${stableName} ${100 - canaryWeight}%, ${canaryName} ${canaryWeight}%`,
    ],
  };
}
