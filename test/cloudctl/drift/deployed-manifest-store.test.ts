// What cloudctl deployed, per object, on embedded PGlite and a real PostgreSQL: a deploy step's
// manifests replace the ones recorded for their objects, the last of a name given twice wins, and
// what is read back is what was written (manifest, content hash, time, cluster scope as '').
import { afterAll, describe, expect, it } from 'vitest';
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

  it('replaces what a step deployed, keeps the last of a name given twice, and reads it back', async () => {
    const first = new Date('2026-01-01T00:00:00.123Z');
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
    };
    await stores().deployed.deployed(
      'acc',
      [configMap('web', { a: '1' }, 'h1'), role, { kind: 'NoName' }],
      first,
    );
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
    await stores().deployed.deployed('acc', [configMap('web', { a: '2' }), configMap('web', quoted)], second);
    expect(await stores().deployed.get(WEB)).toMatchObject({
      manifest: configMap('web', quoted),
      contentHash: null,
      deployedAt: second,
    });
    expect(await stores().deployed.get({ ...key, account: 'other' })).toBeUndefined();
  });
});
