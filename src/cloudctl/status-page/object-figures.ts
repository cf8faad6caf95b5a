// The figures the applications view shows of a workload or a pod, read from the object as the
// cluster reported it: replicas desired/current/ready/available/updated, a pod's restarts and node.
// The same figures `GET /watch` sends with each object (its `figures`), so a row drawn by the server
// and a row the page updates from an event agree. Pure: tested with objects shaped as the API server
// writes them.
import { isRecord } from '../../lib/is-record.ts';

export interface ReplicaFigures {
  desired: number;
  current: number;
  ready: number;
  available: number;
  updated: number;
}

export interface Figures {
  replicas?: ReplicaFigures;
  restarts?: number;
  node?: string;
}

type Obj = Record<string, unknown>;
const record = (value: unknown): Obj => (isRecord(value) ? value : {});
/** A count as Kubernetes omits it when zero. */
const count = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) ? value : 0);

function daemonSetReplicas(status: Obj): ReplicaFigures {
  return {
    desired: count(status.desiredNumberScheduled),
    current: count(status.currentNumberScheduled),
    ready: count(status.numberReady),
    available: count(status.numberAvailable),
    updated: count(status.updatedNumberScheduled),
  };
}

function podFigures(spec: Obj, status: Obj): Figures {
  const statuses = (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).filter(isRecord);
  const restarts = statuses.reduce((sum, c) => sum + count(c.restartCount), 0);
  return { restarts, ...(typeof spec.nodeName === 'string' ? { node: spec.nodeName } : {}) };
}

/** The figures of an object of the kind (Kubernetes' spelling) in the group; none for other kinds. */
export function objectFigures(group: string, kind: string, object: unknown): Figures {
  const body = record(object);
  const spec = record(body.spec);
  const status = record(body.status);
  switch (`${group}/${kind}`) {
    case '/Pod':
      return podFigures(spec, status);
    case 'apps/DaemonSet':
      return { replicas: daemonSetReplicas(status) };
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
    case 'apps/StatefulSet':
      return {
        replicas: {
          // An unset spec.replicas means one, as the API server defaults it.
          desired: typeof spec.replicas === 'number' ? count(spec.replicas) : 1,
          current: count(status.replicas),
          ready: count(status.readyReplicas),
          available: count(status.availableReplicas),
          // A ReplicaSet has no updated replicas: every replica of it is of its one template.
          updated: kind === 'ReplicaSet' ? count(status.replicas) : count(status.updatedReplicas),
        },
      };
    default:
      return {};
  }
}
