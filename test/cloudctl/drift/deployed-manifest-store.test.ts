// What cloudctl deployed, per object, on embedded PGlite and a real PostgreSQL: a deploy step's
// manifests, written in the statement that saves the step's task, replace the ones recorded for their
// objects, the last of a name given twice wins, and what is read back is what was written (manifest,
// content hash, time, cluster scope as '').
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredTask } from '../../../src/cloudctl/tasks/index.ts';
import { CONTENT_HASH_ANNOTATION } from '../../../src/contract/index.ts';
import { storeBackends, storesOf } from '../../support/store-backends.ts';

const { backends, stop } = storeBackends();
afterAll(stop);

/** The key of the ConfigMap `web` in namespace `shop` of account `acc`. */
const WEB = { account: 'acc', group: '', kind: 'ConfigMap', namespace: 'shop', name: 'web' };

const configMap = (name: string, data: Record<string, string>, hash?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'shop',
    ...(hash === undefined ? {} : { annotations: { [CONTENT_HASH_ANNOTATION]: hash } }),
  },
  data,
});

describe.each(backends)('deployed manifests on $name', (backend) => {
  const stores = storesOf(backend);

  /** A running task of owner `o`, stored. */
  async function runningTask(at: Date): Promise<StoredTask> {
    return stores().tasks.create({
      id: randomUUID(),
      requestId: null,
      user: 'u',
      accounts: ['acc'],
      steps: [],
      nextStep: 0,
      state: 'STARTED',
      owner: 'o',
      retryable: false,
      history: [],
      resultObjects: [],
      createdAt: at,
      updatedAt: at,
    });
  }

  /** Records `manifests` as a deploy step does: in the statement saving its task's progress. */
  async function deployed(manifests: unknown[], at: Date, owner = 'o'): Promise<boolean> {
    const task = await runningTask(at);
    const alongside = stores().deployed.recordDeployed('acc', manifests, at);
    return stores().tasks.saveAsOwner({ ...task, nextStep: 1 }, owner, at, {
      stepsChanged: false,
      alongside,
    });
  }

  it('replaces what a step deployed, keeps the last of a name given twice, and reads it back', async () => {
    const first = new Date('2026-01-01T00:00:00.123Z');
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
    };
    expect(await deployed([configMap('web', { a: '1' }, 'h1'), role, { kind: 'NoName' }], first)).toBe(true);
    expect(await stores().deployed.get(WEB)).toEqual({
      ...WEB,
      manifest: configMap('web', { a: '1' }, 'h1'),
      contentHash: 'h1',
      deployedAt: first,
    });
    const key = {
      account: 'acc',
      group: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      namespace: '',
      name: 'reader',
    };
    expect(await stores().deployed.get(key)).toMatchObject({ manifest: role, contentHash: null });

    const second = new Date('2026-01-02T00:00:00.000Z');
    const quoted = { a: 'line\n"two"\\ \u00e9' };
    await deployed([configMap('web', { a: '2' }), configMap('web', quoted)], second);
    expect(await stores().deployed.get(WEB)).toMatchObject({
      manifest: configMap('web', quoted),
      contentHash: null,
      deployedAt: second,
    });
    expect(await stores().deployed.get({ ...key, account: 'other' })).toBeUndefined();
  });

  it('records what a step applied also when its task is no longer ours to save: the cluster has it', async () => {
    const at = new Date('2026-01-03T00:00:00.000Z');
    expect(await deployed([configMap('taken', { a: '1' })], at, 'another owner')).toBe(false);
    expect(await stores().deployed.get({ ...WEB, name: 'taken' })).toMatchObject({ deployedAt: at });
  });

  it('has nothing to record for manifests that name no object', () => {
    expect(stores().deployed.recordDeployed('acc', [{ kind: 'NoName' }, 'text'], new Date())).toBeUndefined();
  });
});
