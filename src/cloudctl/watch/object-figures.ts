// The figures a watcher shows of an object beside its status, read from the object as the cluster
// reports it: a workload's replica counts, a pod's restarts and node. Pure.
import { isRecord } from '../../lib/is-record.ts';
import type { ObjectFigures } from './watch-events.ts';

const WORKLOADS = new Set(['apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet', 'apps/DaemonSet']);

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
/** A count as Kubernetes writes it, omitted when zero. */
const count = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) ? value : 0);

function replicas(kind: string, spec: Record<string, unknown>, status: Record<string, unknown>) {
  if (kind === 'DaemonSet') {
    return {
      desired: count(status.desiredNumberScheduled),
      current: count(status.currentNumberScheduled),
      ready: count(status.numberReady),
      available: count(status.numberAvailable),
      updated: count(status.updatedNumberScheduled),
    };
  }
  return {
    // A workload without `spec.replicas` runs one (the API server defaults it).
    desired: typeof spec.replicas === 'number' ? spec.replicas : 1,
    current: count(status.replicas),
    ready: count(status.readyReplicas),
    available: count(status.availableReplicas),
    updated: count(kind === 'ReplicaSet' ? status.fullyLabeledReplicas : status.updatedReplicas),
  };
}

export function objectFigures(group: string, kind: string, object: unknown): ObjectFigures {
  const body = record(object);
  if (WORKLOADS.has(`${group}/${kind}`))
    return { replicas: replicas(kind, record(body.spec), record(body.status)) };
  if (group === '' && kind === 'Pod') {
    const statuses = record(body.status).containerStatuses;
    const restarts = (Array.isArray(statuses) ? statuses : []).reduce<number>(
      (sum, s) => sum + count(record(s).restartCount),
      0,
    );
    const node = record(body.spec).nodeName;
    return { restarts, ...(typeof node === 'string' ? { node } : {}) };
  }
  return {};
}
