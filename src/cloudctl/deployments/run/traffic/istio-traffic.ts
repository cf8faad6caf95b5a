// Istio: the DestinationRule's two subsets are labelled with the versions (active: the version the
// stable side serves, canary: the new one; other labels of a subset are kept), then the
// VirtualService's http route (the named one, or its only one) gets the two subsets as destinations,
// weighted, on the host its destinations already name. Istio's lists (http, subsets) are atomic to
// server-side apply, so the apply sends each whole, as read, with only those parts changed.
import type { IstioEntry } from '../../deployment-file/traffic-management.ts';
import type { Workload } from '../deployment-progress.ts';
import { VERSION_LABEL } from '../versioned-manifests.ts';
import { applyCall, record, stringMap } from './mesh-object.ts';
import { selectedWorkload, stableVersion } from './selected-workload.ts';
import {
  TrafficError,
  type TrafficPosition,
  type TrafficTarget,
  type TrafficWrites,
} from './traffic-position.ts';

export const ISTIO_API = 'networking.istio.io/v1';

/** The index of the route to steer, and the host its destinations name. */
function routeToSteer(http: Record<string, unknown>[], entry: IstioEntry, where: string) {
  const wanted = entry.virtualService.httpRouteName;
  const names = http.map((r) => (typeof r.name === 'string' ? r.name : '(unnamed)'));
  const index =
    wanted === undefined ? (http.length === 1 ? 0 : -1) : http.findIndex((r) => r.name === wanted);
  if (index < 0)
    throw new TrafficError(
      wanted === undefined
        ? `${where} has ${http.length} http routes (${names.join(', ')}): name one with httpRouteName`
        : `${where} has no http route named ${wanted} (its routes: ${names.join(', ') || 'none'})`,
    );
  const chosen = http[index]?.route;
  const destinations: unknown[] = Array.isArray(chosen) ? chosen : [];
  const host = destinations.map((d) => record(record(d).destination).host).find((h) => typeof h === 'string');
  if (typeof host !== 'string')
    throw new TrafficError(`${where}: http route ${names[index]} names no destination host to split`);
  return { index, host };
}

/** The workload behind the DestinationRule's host (a Service of the namespace), or the only one. */
async function workloadOf(target: TrafficTarget, host: string, where: string): Promise<Workload> {
  const name = host.split('.')[0] ?? host;
  const service = await target.get({ apiVersion: 'v1', kind: 'Service', namespace: target.namespace, name });
  if (service !== undefined)
    return selectedWorkload(
      target,
      stringMap(record(service.spec).selector),
      `Service ${name} (${where}'s host)`,
    );
  const [only, ...more] = target.workloads;
  if (only !== undefined && more.length === 0) return only;
  throw new TrafficError(
    `${where}'s host ${host} is no Service of ${target.namespace}, so its workload is unknown`,
  );
}

function withSubset(subsets: Record<string, unknown>[], name: string, version: string) {
  const found = subsets.find((s) => s.name === name);
  const subset = { ...found, name, labels: { ...stringMap(found?.labels), [VERSION_LABEL]: version } };
  return found === undefined ? [...subsets, subset] : subsets.map((s) => (s === found ? subset : s));
}

export async function istioWrites(
  target: TrafficTarget,
  entry: IstioEntry,
  position: TrafficPosition,
): Promise<TrafficWrites> {
  const { namespace } = target;
  const vsRef = { apiVersion: ISTIO_API, kind: 'VirtualService', namespace, name: entry.virtualService.name };
  const drRef = {
    apiVersion: ISTIO_API,
    kind: 'DestinationRule',
    namespace,
    name: entry.destinationRule.name,
  };
  const [vs, dr] = [await target.get(vsRef), await target.get(drRef)];
  if (vs === undefined) throw new TrafficError(`VirtualService ${namespace}/${vsRef.name} does not exist`);
  if (dr === undefined) throw new TrafficError(`DestinationRule ${namespace}/${drRef.name} does not exist`);
  const drWhere = `DestinationRule ${namespace}/${drRef.name}`;
  const drSpec = record(dr.spec);
  const workload = await workloadOf(target, String(drSpec.host ?? ''), drWhere);
  const stable = stableVersion(workload, position.stable);
  if (stable === undefined) return { calls: [], said: [] };

  const { activeSubsetName: active, canarySubsetName: canary } = entry.destinationRule;
  const subsets = Array.isArray(drSpec.subsets) ? drSpec.subsets.map(record) : [];
  const labelled = withSubset(withSubset(subsets, active, stable), canary, workload.version);

  const listed = record(vs.spec).http;
  const http = Array.isArray(listed) ? listed.map(record) : [];
  const { index, host } = routeToSteer(http, entry, `VirtualService ${namespace}/${vsRef.name}`);
  const weight = position.canaryWeight;
  const route = [
    { destination: { host, subset: active }, weight: 100 - weight },
    { destination: { host, subset: canary }, weight },
  ];
  const steered = http.map((r, i) => (i === index ? { ...r, route } : r));
  return {
    calls: [applyCall(target, drRef, { subsets: labelled }), applyCall(target, vsRef, { http: steered })],
    said: [`VirtualService ${vsRef.name}: ${active} ${100 - weight}%, ${canary} ${weight}%`],
  };
}
