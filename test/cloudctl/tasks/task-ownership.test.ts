// A task's owner as the store keeps it, on embedded PGlite and a real PostgreSQL (where replicas share
// it): only the owner writes a running task's progress, so a replica that lost the task (taken over,
// failed by a client, restarted elsewhere) finds out at its next write; and a restart moves the task,
// and its lease, to the replica asked.
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredTask, TaskStep } from '../../../src/cloudctl/tasks/index.ts';
import { storeBackends, storesOf } from '../../support/store-backends.ts';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const { backends, stop } = storeBackends();
afterAll(stop);

function task(id: string, owner: string): StoredTask {
  return {
    id,
    requestId: null,
    user: 'olaf',
    accounts: ['acc'],
    steps: [],
    nextStep: 0,
    state: 'STARTED',
    owner,
    retryable: false,
    history: [{ phase: 'ORCHESTRATION', status: 'Initializing Orchestration Task' }],
    resultObjects: [],
    createdAt: T0,
    updatedAt: T0,
  };
}

describe.each(backends)('task ownership on $name', (backend) => {
  const stores = storesOf(backend);

  it('lets only the owner write a running task; a takeover moves it and says so', async () => {
    await stores().tasks.create(task('t-take', 'replica-a'));
    const progress = { ...task('t-take', 'replica-a'), nextStep: 1 };
    expect(await stores().tasks.saveAsOwner(progress, 'replica-a', T0, { stepsChanged: true })).toBe(true);

    const taken = await stores().tasks.takeOver('t-take', 'replica-b', T0);
    expect(taken?.owner).toBe('replica-b');
    expect(taken?.history.at(-1)?.status).toBe('Re-assigning task from: replica-a to: replica-b');
    // The former owner's next write changes nothing.
    expect(
      await stores().tasks.saveAsOwner({ ...progress, nextStep: 5 }, 'replica-a', T0, { stepsChanged: true }),
    ).toBe(false);
    const stored = await stores().tasks.get('t-take');
    expect(stored).toMatchObject({ owner: 'replica-b', nextStep: 1, state: 'STARTED' });
    // Taken by its own owner: nothing to say.
    expect((await stores().tasks.takeOver('t-take', 'replica-b', T0))?.history).toHaveLength(2);
  });

  it("writes a running task's steps again only when told they changed", async () => {
    const step: TaskStep = {
      name: 'scaleManifest',
      phase: 'SCALE',
      description: 'Scaling',
      input: {},
      account: 'acc',
      operationId: 'op-1',
      type: 'scale',
      payload: { kind: 'Deployment', namespace: 'ns', name: 'web', replicas: 2 },
    };
    const started = { ...task('t-steps', 'replica-a'), steps: [step] };
    await stores().tasks.create(started);
    const moved = { ...started, nextStep: 1, steps: [{ ...step, operationId: 'op-2' }] };
    expect(await stores().tasks.saveAsOwner(moved, 'replica-a', T0, { stepsChanged: false })).toBe(true);
    expect(await stores().tasks.get('t-steps')).toMatchObject({
      nextStep: 1,
      steps: [{ operationId: 'op-1' }],
    });
    expect(await stores().tasks.saveAsOwner(moved, 'replica-a', T0, { stepsChanged: true })).toBe(true);
    expect(await stores().tasks.get('t-steps')).toMatchObject({ steps: [{ operationId: 'op-2' }] });
    // What readers are answered: the task but its steps.
    const { steps: _steps, ...summary } = (await stores().tasks.get('t-steps')) as StoredTask;
    expect(await stores().tasks.summary('t-steps')).toEqual(summary);
    expect((await stores().tasks.recentSummaries(1000)).find((t) => t.id === 't-steps')).toEqual(summary);
  });

  it('fails a running task for a client, which its owner can then no longer write', async () => {
    await stores().tasks.create(task('t-fail', 'replica-a'));
    const failed = await stores().tasks.markFailed('t-fail', true, 'Orchestration failed: marked', T0);
    expect(failed).toMatchObject({ state: 'FAILED', retryable: true, owner: 'replica-a' });
    expect(
      await stores().tasks.saveAsOwner(task('t-fail', 'replica-a'), 'replica-a', T0, { stepsChanged: true }),
    ).toBe(false);
    expect(await stores().tasks.get('t-fail')).toMatchObject({ state: 'FAILED', retryable: true });
    // A takeover does not revive a failed task.
    expect(await stores().tasks.takeOver('t-fail', 'replica-c', T0)).toBeUndefined();
    expect(await stores().tasks.markFailed('no-such-task', true, 'x', T0)).toBeUndefined();
  });

  it('restarts a retryable failed task as the replica asked, without the failure among its results', async () => {
    await stores().tasks.create({
      ...task('t-restart', 'replica-a'),
      state: 'FAILED',
      retryable: true,
      resultObjects: [
        { type: 'EXCEPTION', message: 'no result by the deadline' },
        { manifestNamesByNamespace: {} },
      ],
    });
    const outcome = await stores().tasks.restart('t-restart', 'replica-b', T0);
    if (outcome === undefined) throw new Error('the task is not stored');
    expect(outcome.restarted).toBe(true);
    expect(outcome.task).toMatchObject({ state: 'STARTED', retryable: false, owner: 'replica-b' });
    expect(outcome.task.resultObjects).toEqual([{ manifestNamesByNamespace: {} }]);
    expect(outcome.task.history.slice(-2).map((h) => h.status)).toEqual([
      'Re-initializing Orchestration Task (failure is retryable)',
      'Re-assigning task from: replica-a to: replica-b',
    ]);
    expect(await stores().tasks.saveAsOwner(outcome.task, 'replica-a', T0, { stepsChanged: true })).toBe(
      false,
    );
    expect(await stores().tasks.saveAsOwner(outcome.task, 'replica-b', T0, { stepsChanged: true })).toBe(
      true,
    );
    // Running now, so not restarted again.
    const again = await stores().tasks.restart('t-restart', 'replica-c', T0);
    expect(again).toMatchObject({ restarted: false, task: { owner: 'replica-b', state: 'STARTED' } });
  });

  it('leaves a completed task completed, and a non-retryable failure unrestarted', async () => {
    await stores().tasks.create({ ...task('t-done', 'replica-a'), state: 'COMPLETED' });
    expect(await stores().tasks.markFailed('t-done', true, 'x', T0)).toMatchObject({ state: 'COMPLETED' });
    expect((await stores().tasks.restart('t-done', 'replica-b', T0))?.restarted).toBe(false);
    await stores().tasks.create({ ...task('t-final', 'replica-a'), state: 'FAILED' });
    expect((await stores().tasks.restart('t-final', 'replica-b', T0))?.restarted).toBe(false);
    expect(await stores().tasks.get('t-final')).toMatchObject({ state: 'FAILED', owner: 'replica-a' });
  });

  it("moves a task's lease from a live owner to the replica that restarts it", async () => {
    const a = stores().leases.leases('task', 'replica-a', 60_000);
    const b = stores().leases.leases('task', 'replica-b', 60_000);
    expect(await a.claim('t-lease')).toBe(true);
    expect(await b.claim('t-lease')).toBe(false);
    await b.take('t-lease');
    expect(await a.renew(['t-lease'])).toEqual([]);
    expect(await b.renew(['t-lease'])).toEqual(['t-lease']);
    // The former owner's release leaves the new owner's lease alone.
    await a.release('t-lease');
    expect(await a.claim('t-lease')).toBe(false);
  });
});
