// What every traffic manager works from and with: where the traffic stands (the canary's share, and
// which version the stable side serves), the target it steers (its workloads, its manifests' pods,
// a read through the agent) and the error it raises when the file's names do not fit the cluster.
// A setWeight step is `{canaryWeight: w, stable: 'previous'}`; the promotion, once the new version
// runs in full, is `{canaryWeight: 0, stable: 'new'}`; a rollback `{canaryWeight: 0, stable: 'previous'}`.
import { CodedError } from '../../../../lib/coded-error.ts';
import type { ManifestObject } from '../../deployment-file/manifest-documents.ts';
import type { WriteCall } from '../deployment-planner.ts';
import type { Workload } from '../deployment-progress.ts';

export interface TrafficPosition {
  /** Percent of the traffic the canary side gets (the stable side gets the rest). */
  canaryWeight: number;
  /** The version the stable side selects: the one live before the run, or the new one. */
  stable: 'previous' | 'new';
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** The target a traffic manager steers; the step that writes gives it (no step context needed). */
export interface TrafficTarget {
  application: string;
  /** The target's name in the file. */
  name: string;
  /** Where the traffic objects live: the target's namespace, or its workloads'. */
  namespace: string;
  workloads: readonly Workload[];
  /** The target's objects from the file, whose Deployments' pod labels tell workloads apart. */
  manifests: readonly ManifestObject[];
  /** The object as the cluster has it now, through the agent; undefined when it does not exist. */
  get(ref: ObjectRef): Promise<Record<string, unknown> | undefined>;
}

/** What a traffic manager writes for one entry, and what the step's message says of it. */
export interface TrafficWrites {
  calls: WriteCall[];
  said: string[];
}

/** The file's traffic names do not fit what the cluster has (a Service missing, a route unnamed). */
export class TrafficError extends CodedError<'TRAFFIC_MISMATCH'> {
  constructor(message: string) {
    super('TRAFFIC_MISMATCH', message);
  }
}
