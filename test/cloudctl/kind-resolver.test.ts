// Naming a custom kind from its cached CustomResourceDefinition, on the real store (embedded
// PGlite): before any object of the kind is cached — just deployed, or of a kind the account's
// `kinds` leave out — GET /manifests and the operations resolve `CronTab.stable.example.com` through
// the CRD's storage version, and the account's spinnakerKindMap lists the kinds its CRDs define.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheChange } from '../../src/cloudctl/caching/index.ts';
import { type CloudctlStores, openStores } from '../../src/cloudctl/index.ts';

const T0 = new Date('2026-01-01T00:00:00.000Z');

function crd(
  account: string,
  group: string,
  kind: string,
  versions: Array<{ name: string; storage: boolean }>,
) {
  const plural = `${kind.toLowerCase()}s`;
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Cluster',
      names: { kind, plural },
      versions: versions.map((v) => ({ ...v, served: true })),
    },
  };
  return {
    type: 'upsert',
    account,
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    namespace: '',
    name: body.metadata.name,
    resourceVersion: '1',
    body: JSON.stringify(body),
    snapshotId: null,
  } satisfies CacheChange;
}

describe('KindResolver and custom kinds defined by cached CRDs', () => {
  let store: CloudctlStores;

  beforeAll(async () => {
    store = await openStores({ kind: 'pglite', dataDir: 'memory://' });
    await store.cache.apply(
      [
        crd('prod', 'stable.example.com', 'CronTab', [
          { name: 'v1beta1', storage: false },
          { name: 'v1', storage: true },
        ]),
        crd('prod', 'example.com', 'Widget', [{ name: 'v2', storage: true }]),
        crd('staging', 'argoproj.io', 'Rollout', [{ name: 'v1alpha1', storage: true }]),
      ],
      T0,
    );
  });

  afterAll(async () => store?.close());

  it('resolves a custom kind from its CRD, in any case, through the storage version', async () => {
    expect(await store.kinds.resolve('prod', 'CronTab.stable.example.com')).toEqual({
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
    });
    expect(await store.kinds.resolve('prod', 'crontab.stable.example.com')).toEqual({
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
    });
  });

  it('does not confuse groups that end alike, nor accounts', async () => {
    // `crontabs.stable.example.com` also ends in `.example.com`: only Widget is of that group.
    expect(await store.kinds.resolve('prod', 'CronTab.example.com')).toBeUndefined();
    expect(await store.kinds.resolve('prod', 'Widget.example.com')).toEqual({
      apiVersion: 'example.com/v2',
      kind: 'Widget',
    });
    expect(await store.kinds.resolve('staging', 'CronTab.stable.example.com')).toBeUndefined();
  });

  it("lists the kinds each account's CRDs define", async () => {
    const defined = await store.kinds.definedKinds(['prod', 'staging']);
    expect(defined.map((k) => `${k.account} ${k.kind}.${k.group}`).sort()).toEqual([
      'prod CronTab.stable.example.com',
      'prod Widget.example.com',
      'staging Rollout.argoproj.io',
    ]);
    expect(await store.kinds.definedKinds([])).toEqual([]);
  });
});
