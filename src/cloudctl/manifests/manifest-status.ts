// A manifest's status as Spinnaker's pipelines wait on it ("wait for manifest to stabilize"): stable,
// paused, available, failed (and retryable, which Orca reads and nothing sets), each a state and a
// message, computed per kind from the object as the cluster reports it. The rules and messages are
// clouddriver's Kubernetes handlers' (KubernetesDeploymentHandler, ...). Clouddriver calls every other
// kind stable, so a pipeline waiting on a custom resource whose controller says `Ready: False` went on
// as if it were done: those kinds are read as kstatus (sigs.k8s.io/cli-utils) reads any object, from
// generic status — deletion, observedGeneration, and the conditions controllers conventionally write
// (Stalled, Ready, Available, Degraded, Reconciling, Progressing). An object without them is stable,
// as kstatus calls it Current. Every status that is not stable, or failed, says why in words.
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
    const message = messageOf(unavailable) ?? 'Deployment does not have minimum availability';
    result.stable = off(message);
    result.available = off(message);
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
  if (failed !== undefined) return { ...defaultStatus(), failed: on(messageOf(failed) ?? 'Job has failed') };
  return unstable('Waiting for jobs to finish');
}

/** "Ready is False (Reason): message", the condition in words. */
function described(condition: Obj): string {
  const type = typeof condition.type === 'string' ? condition.type : 'condition';
  const status = typeof condition.status === 'string' ? condition.status : 'unset';
  const reason =
    typeof condition.reason === 'string' && condition.reason !== '' ? ` (${condition.reason})` : '';
  const message = messageOf(condition);
  return `${type} is ${status}${reason}${message ? `: ${message}` : ''}`;
}

/** Progressing reasons that say the progress is over, as controllers spell them (NewReplicaSetAvailable, Complete, Succeeded). */
const PROGRESS_DONE = /complete|succe|available/i;

/**
 * kstatus's reading of a kind nobody wrote rules for, in its order: being deleted, a generation the
 * controller has not observed, Stalled; then the conditions it leaves to each kind's rules, read the
 * way controllers that write them mean them. Stable when none of them says otherwise.
 */
function genericStatus(kind: string, object: Obj): ManifestStatus {
  const metadata = record(object.metadata);
  if (typeof metadata.deletionTimestamp === 'string' && metadata.deletionTimestamp !== '')
    return unstable(`${kind} is being deleted`);
  const status = record(object.status);
  const { generation } = metadata;
  const observed = status.observedGeneration;
  if (typeof generation === 'number' && typeof observed === 'number' && observed < generation)
    return unstable(
      `Waiting for the controller to observe generation ${generation} (it has observed ${observed})`,
    );
  const conditions = conditionsOf(status);
  const find = (type: string, ...statuses: string[]) =>
    conditions.find((c) => lower(c.type) === type && statuses.includes(lower(c.status)));
  const stalled = find('stalled', 'true');
  if (stalled !== undefined) return { ...unstable(described(stalled)), failed: on(described(stalled)) };
  const deadline = find('progressing', 'false');
  if (deadline !== undefined && lower(deadline.reason) === 'progressdeadlineexceeded')
    return { ...unstable(described(deadline)), failed: on(described(deadline)) };
  const notServing =
    find('ready', 'false', 'unknown') ?? find('available', 'false') ?? find('degraded', 'true');
  if (notServing !== undefined) {
    const message = described(notServing);
    return { ...unstable(message), available: off(message) };
  }
  const reconciling = find('reconciling', 'true');
  if (reconciling !== undefined) return unstable(described(reconciling));
  const progressing = find('progressing', 'true');
  if (progressing !== undefined && !PROGRESS_DONE.test(String(progressing.reason ?? '')))
    return unstable(described(progressing));
  return defaultStatus();
}

/**
 * The status of an object of the kind (Kubernetes' spelling, `Deployment`) in the group. Clouddriver
 * reads a StatefulSet with the OnDelete strategy as stable before looking at its status at all.
 * Kubernetes' own kinds without a rule stay stable, as clouddriver has them; custom kinds are read
 * generically.
 */
export function manifestStatus(group: string, kind: string, object: unknown): ManifestStatus {
  const body = record(object);
  const key = `${group}/${kind}`;
  if (key === 'apps/StatefulSet' && lower(record(record(body.spec).updateStrategy).type) === 'ondelete')
    return defaultStatus();
  const rules = RULES[key];
  if (rules === undefined) return isCustomGroup(group) ? genericStatus(kind, body) : defaultStatus();
  if (!isRecord(body.status)) return noneReported();
  return rules(body, body.status);
}

/**
 * Whether the group is not one of Kubernetes' own: a CRD's group has a dot (the API server requires
 * one), and Kubernetes keeps `*.k8s.io` and `*.kubernetes.io` for its own APIs.
 */
function isCustomGroup(group: string): boolean {
  return group.includes('.') && !group.endsWith('.k8s.io') && !group.endsWith('.kubernetes.io');
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
