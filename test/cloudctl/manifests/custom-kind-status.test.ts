// The status of a custom resource, read as kstatus reads an object no rule was written for: deletion,
// an unobserved generation, and the conditions controllers write (Stalled, Ready, Available,
// Degraded, Reconciling, Progressing); stable when the object reports none of them. Each status that
// is not stable says why in words. Kubernetes' own kinds without a rule keep clouddriver's "stable".
import { describe, expect, it } from 'vitest';
import { manifestStatus } from '../../../src/cloudctl/manifests/index.ts';

const GROUP = 'stable.example.com';

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function crontab(status?: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'CronTab',
    metadata: { name: 'nightly', namespace: 'shop', generation: 3, uid: 'u-1', ...metadata },
    spec: { cronSpec: '0 3 * * *' },
    ...(status === undefined ? {} : { status }),
  };
}

const withConditions = (...conditions: Cond[]) => crontab({ observedGeneration: 3, conditions });
const status = (object: unknown) => manifestStatus(GROUP, 'CronTab', object);

describe('custom kinds read generically (kstatus)', () => {
  it('is stable and available without a status, or with conditions that say nothing against it', () => {
    expect(status(crontab())).toEqual({
      stable: { state: true, message: null },
      paused: { state: false, message: null },
      available: { state: true, message: null },
      failed: { state: false, message: null },
      retryable: { state: false, message: null },
    });
    expect(status(withConditions({ type: 'Ready', status: 'True', reason: 'Reconciled' })).stable.state).toBe(
      true,
    );
    expect(status(crontab({ phase: 'Whatever' })).stable.state).toBe(true);
  });

  it('waits for the controller to observe the newest generation', () => {
    const behind = status(
      crontab({ observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True' }] }),
    );
    expect(behind.stable).toEqual({
      state: false,
      message: 'Waiting for the controller to observe generation 3 (it has observed 2)',
    });
    expect(behind.failed.state).toBe(false);
  });

  it('is neither stable nor available while Ready is False, with the reason and message in words', () => {
    const result = status(
      withConditions({
        type: 'Ready',
        status: 'False',
        reason: 'DatabaseDown',
        message: 'cannot reach db:5432',
      }),
    );
    const message = 'Ready is False (DatabaseDown): cannot reach db:5432';
    expect(result.stable).toEqual({ state: false, message });
    expect(result.available).toEqual({ state: false, message });
    expect(result.failed.state).toBe(false);
  });

  it('is not stable while Ready is Unknown, Available is False or Degraded is True', () => {
    expect(
      status(withConditions({ type: 'Ready', status: 'Unknown', reason: 'Progressing' })).stable,
    ).toEqual({
      state: false,
      message: 'Ready is Unknown (Progressing)',
    });
    expect(
      status(withConditions({ type: 'Available', status: 'False', message: '0 of 2 members up' })).stable,
    ).toEqual({ state: false, message: 'Available is False: 0 of 2 members up' });
    const degraded = status(withConditions({ type: 'Degraded', status: 'True', reason: 'QuorumLost' }));
    expect(degraded.stable).toEqual({ state: false, message: 'Degraded is True (QuorumLost)' });
    // Degraded may heal by itself: waiting goes on rather than failing the pipeline.
    expect(degraded.failed.state).toBe(false);
  });

  it('fails when Stalled is True, or progress passed its deadline', () => {
    const stalled = status(
      withConditions(
        { type: 'Ready', status: 'False', reason: 'Invalid' },
        { type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'spec.cronSpec does not parse' },
      ),
    );
    expect(stalled.failed).toEqual({
      state: true,
      message: 'Stalled is True (InvalidSpec): spec.cronSpec does not parse',
    });
    expect(stalled.stable.state).toBe(false);
    const deadline = status(
      withConditions({ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }),
    );
    expect(deadline.failed).toEqual({
      state: true,
      message: 'Progressing is False (ProgressDeadlineExceeded)',
    });
  });

  it('is not stable while Reconciling, or Progressing for a reason other than done', () => {
    expect(
      status(withConditions({ type: 'Reconciling', status: 'True', reason: 'Scaling', message: 'adding 1' }))
        .stable,
    ).toEqual({ state: false, message: 'Reconciling is True (Scaling): adding 1' });
    expect(
      status(withConditions({ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' })).stable,
    ).toEqual({ state: false, message: 'Progressing is True (ReplicaSetUpdated)' });
    for (const reason of ['NewReplicaSetAvailable', 'Complete', 'Succeeded'])
      expect(status(withConditions({ type: 'Progressing', status: 'True', reason })).stable.state).toBe(true);
  });

  it('is not stable while being deleted', () => {
    expect(status(crontab(undefined, { deletionTimestamp: '2026-11-28T10:00:00Z' })).stable).toEqual({
      state: false,
      message: 'CronTab is being deleted',
    });
  });

  it('leaves Kubernetes’ own kinds without a rule stable, as clouddriver has them', () => {
    const apiService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', generation: 2 },
      status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] },
    };
    expect(manifestStatus('apiregistration.k8s.io', 'APIService', apiService).stable.state).toBe(true);
    const hpa = { metadata: { generation: 2 }, status: { observedGeneration: 1 } };
    expect(manifestStatus('autoscaling', 'HorizontalPodAutoscaler', hpa).stable.state).toBe(true);
  });
});
