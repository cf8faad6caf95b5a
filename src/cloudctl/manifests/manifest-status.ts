// A manifest's status as Spinnaker's pipelines wait on it ("wait for manifest to stabilize"): stable,
// paused, available, failed (and retryable, which Orca reads and nothing sets), each a state and a
// message, computed per kind from the object as the cluster reports it. The rules and messages are
// clouddriver's Kubernetes handlers' (KubernetesDeploymentHandler, ...); every other kind is stable.
// Pure: tested per kind with objects shaped as the API server writes them.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';

export const conditionSchema = z
  .object({ state: z.boolean(), message: z.string().nullable() })
  .describe('ManifestStatusCondition');

export const manifestStatusSchema = z
  .object({
    stable: conditionSchema.describe('whether the object reached the state its spec asks for'),
    paused: conditionSchema.describe('whether its rollout is paused'),
    available: conditionSchema.describe('whether it serves'),
    failed: conditionSchema.describe('whether it failed (a progress deadline, a failed Job)'),
    retryable: conditionSchema.describe('never set: present because Orca reads it'),
  })
  .describe('ManifestStatus');

export type Condition = z.infer<typeof conditionSchema>;
export type ManifestStatus = z.infer<typeof manifestStatusSchema>;

/** Clouddriver's messages for replica counts not yet where the spec wants them. */
export const UNSTABLE = {
  availableReplicas: 'Waiting for all replicas to be available',
  fullyLabeledReplicas: 'Waiting for all replicas to be fully-labeled',
  oldGeneration: 'Waiting for status generation to match updated object generation',
  oldReplicas: 'Waiting for old replicas to finish termination',
  readyReplicas: 'Waiting for all replicas to be ready',
  updatedReplicas: 'Waiting for all replicas to be updated',
} as const;

const on = (message: string | null = null): Condition => ({ state: true, message });
const off = (message: string | null = null): Condition => ({ state: false, message });

/** Stable, available, neither paused nor failed: what a kind without rules always is. */
export function defaultStatus(): ManifestStatus {
  return { stable: on(), paused: off(), available: on(), failed: off(), retryable: off() };
}

/** An object whose controller has written no status yet. */
function noneReported(): ManifestStatus {
  return {
    ...defaultStatus(),
    stable: off('No status reported yet'),
    available: off('No availability reported'),
  };
}

const unstable = (message: string): ManifestStatus => ({ ...defaultStatus(), stable: off(message) });

type Obj = Record<string, unknown>;
const record = (value: unknown): Obj => (isRecord(value) ? value : {});
/** A count as Kubernetes omits it when zero. */
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
const conditionsOf = (status: Obj): Obj[] =>
  (Array.isArray(status.conditions) ? status.conditions : []).filter(isRecord);
const lower = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '');
const messageOf = (condition: Obj): string | null =>
  typeof condition.message === 'string' ? condition.message : null;

/** Whether the controller has seen the newest spec: observedGeneration equals metadata.generation. */
function generationObserved(object: Obj, status: Obj): boolean {
  const observed = status.observedGeneration;
  return observed !== undefined && observed === record(object.metadata).generation;
}

function deploymentStatus(object: Obj, status: Obj): ManifestStatus {
  if (!generationObserved(object, status)) return unstable(UNSTABLE.oldGeneration);
  const conditions = conditionsOf(status);
  const result = defaultStatus();
  const paused = conditions.find((c) => lower(c.reason) === 'deploymentpaused');
  if (paused !== undefined) result.paused = on(messageOf(paused));
  const unavailable = conditions.find((c) => lower(c.type) === 'available' && lower(c.status) === 'false');
  if (unavailable !== undefined) {
    result.stable = off(messageOf(unavailable));
    result.available = off(messageOf(unavailable));
  }
  if (
    conditions.some((c) => lower(c.type) === 'progressing' && lower(c.reason) === 'progressdeadlineexceeded')
  ) {
    result.failed = on('Deployment exceeded its progress deadline');
  }
  const desired = count(record(object.spec).replicas);
  const updated = count(status.updatedReplicas);
  const reason =
    updated < desired
      ? UNSTABLE.updatedReplicas
      : count(status.replicas) > updated
        ? UNSTABLE.oldReplicas
        : count(status.availableReplicas) < desired
          ? UNSTABLE.availableReplicas
          : count(status.readyReplicas) < desired
            ? UNSTABLE.readyReplicas
            : undefined;
  if (reason !== undefined) result.stable = off(reason);
  return result;
}

function replicaSetStatus(object: Obj, status: Obj): ManifestStatus {
  const desired = count(record(object.spec).replicas);
  const reason =
    desired > count(status.fullyLabeledReplicas)
      ? UNSTABLE.fullyLabeledReplicas
      : desired > count(status.readyReplicas)
        ? UNSTABLE.readyReplicas
        : desired > count(status.availableReplicas)
          ? UNSTABLE.availableReplicas
          : undefined;
  if (reason !== undefined) return { ...unstable(reason), available: off(reason) };
  if (!generationObserved(object, status))
    return unstable('Waiting for replicaset spec update to be observed');
  return defaultStatus();
}

function statefulSetStatus(object: Obj, status: Obj): ManifestStatus {
  const spec = record(object.spec);
  const strategy = record(spec.updateStrategy);
  const type = lower(strategy.type);
  if (!generationObserved(object, status)) return unstable(UNSTABLE.oldGeneration);
  const desired = count(spec.replicas);
  if (desired > count(status.replicas))
    return unstable('Waiting for at least the desired replica count to be met');
  if (desired > count(status.readyReplicas)) return unstable('Waiting for all updated replicas to be ready');
  const rollingUpdate = strategy.rollingUpdate;
  if (type === 'rollingupdate' && typeof status.updatedReplicas === 'number' && isRecord(rollingUpdate)) {
    const { partition } = rollingUpdate;
    if (
      typeof status.replicas === 'number' &&
      typeof partition === 'number' &&
      status.updatedReplicas < status.replicas - partition
    ) {
      return unstable('Waiting for partitioned roll out to finish');
    }
    return { ...defaultStatus(), stable: on('Partitioned roll out complete') };
  }
  if (desired > count(status.currentReplicas))
    return unstable('Waiting for all updated replicas to be scheduled');
  if (status.currentRevision !== status.updateRevision)
    return unstable('Waiting for the updated revision to match the current revision');
  return defaultStatus();
}

function daemonSetStatus(object: Obj, status: Obj): ManifestStatus {
  if (!generationObserved(object, status)) return unstable(UNSTABLE.oldGeneration);
  if (lower(record(record(object.spec).updateStrategy).type) !== 'rollingupdate') return defaultStatus();
  const desired = count(status.desiredNumberScheduled);
  if (desired > count(status.currentNumberScheduled))
    return unstable('Waiting for all replicas to be scheduled');
  if (desired > count(status.updatedNumberScheduled))
    return unstable('Waiting for all updated replicas to be scheduled');
  if (desired > count(status.numberAvailable)) return unstable('Waiting for all replicas to be available');
  if (desired > count(status.numberReady)) return unstable('Waiting for all replicas to be ready');
  return defaultStatus();
}

/** Pending, Failed and Unknown (or a phase Kubernetes does not define) are neither stable nor available. */
const POD_PHASE_MESSAGES: Record<string, string | undefined> = {
  Pending: 'Pod is pending',
  Running: undefined,
  Succeeded: undefined,
  Failed: 'Pod has failed',
};

function podStatus(status: Obj): ManifestStatus {
  const phase = typeof status.phase === 'string' ? status.phase : 'Unknown';
  const message = Object.hasOwn(POD_PHASE_MESSAGES, phase)
    ? POD_PHASE_MESSAGES[phase]
    : 'Pod phase is unknown';
  if (message === undefined) return defaultStatus();
  return { ...unstable(message), available: off(message) };
}

function jobStatus(object: Obj, status: Obj): ManifestStatus {
  const completions = record(object.spec).completions;
  const wanted = typeof completions === 'number' ? completions : 1;
  if (count(status.succeeded) >= wanted) return defaultStatus();
  const failed = conditionsOf(status).find((c) => lower(c.type) === 'failed' && lower(c.status) === 'true');
  if (failed !== undefined) return { ...defaultStatus(), failed: on(messageOf(failed)) };
  return unstable('Waiting for jobs to finish');
}

/**
 * The status of an object of the kind (Kubernetes' spelling, `Deployment`) in the group. Clouddriver
 * reads a StatefulSet with the OnDelete strategy as stable before looking at its status at all.
 */
export function manifestStatus(group: string, kind: string, object: unknown): ManifestStatus {
  const body = record(object);
  const key = `${group}/${kind}`;
  if (key === 'apps/StatefulSet' && lower(record(record(body.spec).updateStrategy).type) === 'ondelete')
    return defaultStatus();
  const rules = RULES[key];
  if (rules === undefined) return defaultStatus();
  if (!isRecord(body.status)) return noneReported();
  return rules(body, body.status);
}

/** Kinds with rules, by `group/Kind`; Services, ConfigMaps and every other kind are stable. */
const RULES: Record<string, ((object: Obj, status: Obj) => ManifestStatus) | undefined> = {
  'apps/Deployment': deploymentStatus,
  'apps/ReplicaSet': replicaSetStatus,
  'apps/StatefulSet': statefulSetStatus,
  'apps/DaemonSet': daemonSetStatus,
  '/Pod': (_object, status) => podStatus(status),
  'batch/Job': jobStatus,
};
