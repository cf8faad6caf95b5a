// A manifest's status per kind, as clouddriver's handlers compute it and Spinnaker's "wait for
// manifest to stabilize" reads it, from objects shaped as the API server and its controllers write
// them (kube-controller-manager's status fields and conditions).
import { describe, expect, it } from 'vitest';
import { manifestStatus } from '../../../src/cloudctl/manifests/index.ts';
import { UNSTABLE } from '../../../src/cloudctl/manifests/manifest-status.ts';

const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastUpdateTime: '2026-11-26T10:00:00Z',
  lastTransitionTime: '2026-11-26T10:00:00Z',
});

function deployment(generation: number, status: Record<string, unknown> | undefined, replicas = 3) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', generation, uid: 'u-1' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'web:1' }] },
      },
      progressDeadlineSeconds: 600,
    },
    ...(status === undefined ? {} : { status }),
  };
}

const rolledOut = {
  observedGeneration: 2,
  replicas: 3,
  updatedReplicas: 3,
  readyReplicas: 3,
  availableReplicas: 3,
  conditions: [
    condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    condition(
      'Progressing',
      'True',
      'NewReplicaSetAvailable',
      'ReplicaSet "web-5d9c" has successfully progressed.',
    ),
  ],
};

describe('Deployment status', () => {
  it('is stable and available once every replica is updated, available and ready', () => {
    expect(manifestStatus('apps', 'Deployment', deployment(2, rolledOut))).toEqual({
      stable: { state: true, message: null },
      paused: { state: false, message: null },
      available: { state: true, message: null },
      failed: { state: false, message: null },
      retryable: { state: false, message: null },
    });
  });

  it('reports no status yet before the controller wrote one', () => {
    const status = manifestStatus('apps', 'Deployment', deployment(1, undefined));
    expect(status.stable).toEqual({ state: false, message: 'No status reported yet' });
    expect(status.available).toEqual({ state: false, message: 'No availability reported' });
  });

  it('is not stable until the controller observed the newest generation', () => {
    const status = manifestStatus('apps', 'Deployment', deployment(3, rolledOut));
    expect(status.stable).toEqual({ state: false, message: UNSTABLE.oldGeneration });
    expect(status.available.state).toBe(true);
  });

  it('waits for updated, then old, then available, then ready replicas, in that order', () => {
    const at = (fields: Record<string, number>) =>
      manifestStatus('apps', 'Deployment', deployment(2, { ...rolledOut, ...fields })).stable.message;
    expect(at({ updatedReplicas: 1, replicas: 4, availableReplicas: 2 })).toBe(
      'Waiting for all replicas to be updated',
    );
    expect(at({ replicas: 4 })).toBe('Waiting for old replicas to finish termination');
    expect(at({ availableReplicas: 2, readyReplicas: 2 })).toBe('Waiting for all replicas to be available');
    expect(at({ readyReplicas: 2 })).toBe('Waiting for all replicas to be ready');
  });

  it('is paused when its Progressing condition says DeploymentPaused', () => {
    const paused = {
      ...rolledOut,
      conditions: [
        rolledOut.conditions[0],
        condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'),
      ],
    };
    const status = manifestStatus('apps', 'Deployment', deployment(2, paused));
    expect(status.paused).toEqual({ state: true, message: 'Deployment is paused' });
    expect(status.stable.state).toBe(true);
  });

  it('is unavailable and unstable with the Available condition false, failed past its deadline', () => {
    const stuck = {
      ...rolledOut,
      availableReplicas: 0,
      readyReplicas: 0,
      unavailableReplicas: 3,
      conditions: [
        condition(
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
        ),
        condition(
          'Progressing',
          'False',
          'ProgressDeadlineExceeded',
          'ReplicaSet "web-5d9c" has timed out progressing.',
        ),
      ],
    };
    const status = manifestStatus('apps', 'Deployment', deployment(2, stuck));
    expect(status.available).toEqual({
      state: false,
      message: 'Deployment does not have minimum availability.',
    });
    // The replica counts speak last, as in clouddriver: their reason is the one shown.
    expect(status.stable).toEqual({ state: false, message: 'Waiting for all replicas to be available' });
    expect(status.failed).toEqual({ state: true, message: 'Deployment exceeded its progress deadline' });
  });
});

function replicaSet(status: Record<string, unknown>, generation = 1, replicas = 2) {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-v001', namespace: 'shop', generation },
    spec: { replicas, selector: { matchLabels: { app: 'web' } } },
    status,
  };
}

describe('ReplicaSet status', () => {
  const full = {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    observedGeneration: 1,
  };

  it('is stable with every replica fully labeled, ready and available at the observed generation', () => {
    expect(manifestStatus('apps', 'ReplicaSet', replicaSet(full)).stable).toEqual({
      state: true,
      message: null,
    });
  });

  it('is unstable and unavailable while replicas are missing, with the first missing count named', () => {
    const starting = manifestStatus('apps', 'ReplicaSet', replicaSet({ replicas: 2, observedGeneration: 1 }));
    expect(starting.stable).toEqual({ state: false, message: UNSTABLE.fullyLabeledReplicas });
    expect(starting.available).toEqual({ state: false, message: UNSTABLE.fullyLabeledReplicas });
    const unready = manifestStatus('apps', 'ReplicaSet', replicaSet({ ...full, readyReplicas: 1 }));
    expect(unready.stable.message).toBe(UNSTABLE.readyReplicas);
    const unavailable = manifestStatus('apps', 'ReplicaSet', replicaSet({ ...full, availableReplicas: 1 }));
    expect(unavailable.stable.message).toBe(UNSTABLE.availableReplicas);
  });

  it('waits for a new spec to be observed once the counts are met', () => {
    const status = manifestStatus('apps', 'ReplicaSet', replicaSet(full, 2));
    expect(status.stable).toEqual({
      state: false,
      message: 'Waiting for replicaset spec update to be observed',
    });
    expect(status.available.state).toBe(true);
  });

  it('is stable scaled to zero with no status counts at all', () => {
    const status = manifestStatus(
      'apps',
      'ReplicaSet',
      replicaSet({ replicas: 0, observedGeneration: 1 }, 1, 0),
    );
    expect(status.stable.state).toBe(true);
  });
});

function statefulSet(spec: Record<string, unknown>, status: Record<string, unknown>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'shop', generation: 1 },
    spec: { replicas: 3, serviceName: 'db', ...spec },
    status: { observedGeneration: 1, ...status },
  };
}

describe('StatefulSet status', () => {
  const rolling = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } };

  it('is stable with the OnDelete strategy, whatever the status says', () => {
    const status = manifestStatus(
      'apps',
      'StatefulSet',
      statefulSet({ updateStrategy: { type: 'OnDelete' } }, {}),
    );
    expect(status.stable).toEqual({ state: true, message: null });
  });

  it('waits for the desired count, then readiness, then the partitioned roll out', () => {
    const at = (status: Record<string, unknown>) =>
      manifestStatus('apps', 'StatefulSet', statefulSet(rolling, status)).stable;
    expect(at({ replicas: 2 }).message).toBe('Waiting for at least the desired replica count to be met');
    expect(at({ replicas: 3, readyReplicas: 2 }).message).toBe(
      'Waiting for all updated replicas to be ready',
    );
    expect(at({ replicas: 3, readyReplicas: 3, updatedReplicas: 2 }).message).toBe(
      'Waiting for partitioned roll out to finish',
    );
    expect(at({ replicas: 3, readyReplicas: 3, updatedReplicas: 3 })).toEqual({
      state: true,
      message: 'Partitioned roll out complete',
    });
  });

  it('without a rolling update figure, waits for the current revision to be the update revision', () => {
    const status = {
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      currentRevision: 'db-7c9f',
      updateRevision: 'db-84b2',
    };
    const updating = manifestStatus(
      'apps',
      'StatefulSet',
      statefulSet({ updateStrategy: { type: 'RollingUpdate' } }, status),
    );
    expect(updating.stable.message).toBe('Waiting for the updated revision to match the current revision');
    const done = manifestStatus(
      'apps',
      'StatefulSet',
      statefulSet({ updateStrategy: { type: 'RollingUpdate' } }, { ...status, updateRevision: 'db-7c9f' }),
    );
    expect(done.stable.state).toBe(true);
  });
});

describe('DaemonSet status', () => {
  const daemonSet = (status: Record<string, unknown>, type = 'RollingUpdate') => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'kube-system', generation: 4 },
    spec: { updateStrategy: { type } },
    status: { observedGeneration: 4, ...status },
  });
  const all = {
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
    numberReady: 3,
  };

  it('walks scheduled, updated, available and ready counts', () => {
    const at = (fields: Record<string, number>) =>
      manifestStatus('apps', 'DaemonSet', daemonSet({ ...all, ...fields })).stable.message;
    expect(at({ currentNumberScheduled: 2 })).toBe('Waiting for all replicas to be scheduled');
    expect(at({ updatedNumberScheduled: 2 })).toBe('Waiting for all updated replicas to be scheduled');
    expect(at({ numberAvailable: 2 })).toBe('Waiting for all replicas to be available');
    expect(at({ numberReady: 2 })).toBe('Waiting for all replicas to be ready');
    expect(at({})).toBeNull();
  });

  it('is stable with the OnDelete strategy once the generation is observed', () => {
    expect(manifestStatus('apps', 'DaemonSet', daemonSet({ numberReady: 0 }, 'OnDelete')).stable.state).toBe(
      true,
    );
  });
});

describe('Pod status', () => {
  const pod = (phase: string | undefined) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-v001-x2x9k', namespace: 'shop' },
    spec: { containers: [{ name: 'web', image: 'web:1' }] },
    status: phase === undefined ? { conditions: [] } : { phase, hostIP: '10.0.0.1' },
  });

  it('is stable while Running or Succeeded', () => {
    expect(manifestStatus('', 'Pod', pod('Running')).stable.state).toBe(true);
    expect(manifestStatus('', 'Pod', pod('Succeeded')).available.state).toBe(true);
  });

  it('is neither stable nor available while Pending, Failed or of unknown phase', () => {
    expect(manifestStatus('', 'Pod', pod('Pending')).stable).toEqual({
      state: false,
      message: 'Pod is pending',
    });
    expect(manifestStatus('', 'Pod', pod('Failed')).available).toEqual({
      state: false,
      message: 'Pod has failed',
    });
    expect(manifestStatus('', 'Pod', pod(undefined)).stable.message).toBe('Pod phase is unknown');
  });
});

describe('Job status', () => {
  const job = (status: Record<string, unknown>, completions?: number) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'shop' },
    spec: { ...(completions === undefined ? {} : { completions }), template: { spec: { containers: [] } } },
    status,
  });

  it('waits until the completions succeeded (one by default)', () => {
    expect(manifestStatus('batch', 'Job', job({ active: 1 })).stable.message).toBe(
      'Waiting for jobs to finish',
    );
    expect(manifestStatus('batch', 'Job', job({ succeeded: 1 })).stable.state).toBe(true);
    expect(manifestStatus('batch', 'Job', job({ succeeded: 1 }, 2)).stable.state).toBe(false);
  });

  it('is failed with the Failed condition’s message', () => {
    const failedJob = job({
      failed: 7,
      conditions: [
        condition('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
      ],
    });
    const status = manifestStatus('batch', 'Job', failedJob);
    expect(status.failed).toEqual({ state: true, message: 'Job has reached the specified backoff limit' });
    expect(status.stable.state).toBe(true);
  });
});

describe('kinds without rules', () => {
  it('a Service and a ConfigMap are stable and available with or without a status', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {},
      status: { loadBalancer: {} },
    };
    expect(manifestStatus('', 'Service', service).stable.state).toBe(true);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { a: '1' },
    };
    expect(manifestStatus('', 'ConfigMap', configMap)).toMatchObject({
      stable: { state: true },
      available: { state: true },
    });
  });
});
