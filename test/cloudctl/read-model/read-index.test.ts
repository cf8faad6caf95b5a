// The read model's index is written with the cache, in its transaction, and stays exact: deletes,
// snapshot ends and evictions take the derived rows with the objects. The application queries read
// only the index and put server groups, pods and Services together.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheChange } from '../../../src/cloudctl/caching/index.ts';
import { type CloudctlStores, openStores } from '../../../src/cloudctl/index.ts';
import { INDEX_COLUMNS, ReadIndex } from '../../../src/cloudctl/read-model/read-index.ts';
import { serverGroupOf } from '../../../src/cloudctl/read-model/views.ts';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const ACCOUNT = 'prod';
const NS = 'shop';

function upsert(
  group: string,
  kind: string,
  name: string,
  object: Record<string, unknown>,
  snapshotId: string | null = null,
) {
  return {
    type: 'upsert',
    account: ACCOUNT,
    group,
    version: 'v1',
    kind,
    namespace: NS,
    name,
    resourceVersion: '1',
    body: JSON.stringify({ ...object, metadata: { name, namespace: NS, ...(object.metadata as object) } }),
    snapshotId,
  } satisfies CacheChange;
}

const moniker = {
  'moniker.spinnaker.io/application': 'shop',
  'moniker.spinnaker.io/cluster': 'deployment web',
};
const deployment = upsert('apps', 'Deployment', 'web', { metadata: { annotations: moniker, uid: 'd1' } });
const replicaSet = (replicas: number) =>
  upsert('apps', 'ReplicaSet', 'web-1', {
    metadata: {
      annotations: moniker,
      uid: 'r1',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd1', controller: true },
      ],
    },
    spec: { replicas, template: { metadata: { labels: { app: 'web' } } } },
  });
const pod = (name: string, phase: string, ready: boolean) =>
  upsert('', 'Pod', name, {
    metadata: {
      labels: { app: 'web' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'r1', controller: true },
      ],
    },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
const service = upsert('', 'Service', 'web', { spec: { selector: { app: 'web' } } });

let store: CloudctlStores;

beforeEach(async () => {
  store = await openStores({ kind: 'pglite', dataDir: 'memory://' });
});
afterEach(async () => {
  await store.close();
});

async function webServerGroup() {
  const app = await store.readModel.application('shop', [ACCOUNT]);
  const sg = app.objects.find((o) => o.role === 'serverGroup');
  if (sg === undefined) throw new Error('no server group');
  return serverGroupOf(sg, { application: 'shop', ...app, expand: true });
}

describe('the read index', () => {
  it('puts a Deployment, its ReplicaSet, the pods it owns and the Service selecting them together', async () => {
    await store.cache.apply(
      [
        deployment,
        replicaSet(3),
        pod('web-1-a', 'Running', true),
        pod('web-1-b', 'Running', false),
        pod('web-1-c', 'Pending', false),
        service,
      ],
      NOW,
    );
    const sg = await webServerGroup();
    expect(sg).toMatchObject({
      name: 'replicaSet web-1',
      region: NS,
      cluster: 'deployment web',
      disabled: false,
      capacity: { desired: 3 },
      instanceCounts: { total: 3, up: 1, down: 1, starting: 1 },
      loadBalancers: ['service web'],
      serverGroupManagers: [{ account: ACCOUNT, location: NS, name: 'web' }],
    });
    expect(sg.instances.map((i) => i.name)).toEqual(['pod web-1-a', 'pod web-1-b', 'pod web-1-c']);
  });

  it('fetches only the parts around the server groups a read asks for, and managed ones without the mark', async () => {
    // A ReplicaSet without the application's mark, owned by the application's Deployment.
    const unmarked = JSON.parse(replicaSet(2).body) as { metadata: { annotations?: object } };
    delete unmarked.metadata.annotations;
    await store.cache.apply(
      [
        deployment,
        { ...replicaSet(2), body: JSON.stringify(unmarked) },
        pod('web-1-a', 'Running', true),
        service,
        upsert('networking.k8s.io', 'NetworkPolicy', 'all', { spec: { podSelector: {} } }),
      ],
      NOW,
    );
    const names = (objects: ReadonlyArray<{ name: string }>) => objects.map((o) => o.name);
    const all = await store.readModel.application('shop', [ACCOUNT], ['serverGroup']);
    expect(all.objects.map((o) => [o.name, o.application])).toEqual([['web-1', null]]);
    expect([names(all.instances), names(all.loadBalancers), names(all.securityGroups)]).toEqual([
      ['web-1-a'],
      ['web'],
      ['all'],
    ]);
    const bare = await store.readModel.application('shop', [ACCOUNT], ['serverGroup', 'serverGroupManager'], {
      instances: false,
      loadBalancers: false,
      securityGroups: false,
    });
    expect(names(bare.objects).sort()).toEqual(['web', 'web-1']);
    expect([bare.instances, bare.loadBalancers, bare.securityGroups]).toEqual([[], [], []]);
    const balancers = await store.readModel.application('shop', [ACCOUNT], undefined, {
      instances: false,
      securityGroups: false,
    });
    expect(names(balancers.loadBalancers)).toEqual(['web']);
    expect([balancers.instances, balancers.securityGroups]).toEqual([[], []]);
  });

  it('gives a server group the NetworkPolicies whose podSelector selects its pods', async () => {
    const policy = (name: string, podSelector: object) =>
      upsert('networking.k8s.io', 'NetworkPolicy', name, { spec: { podSelector } });
    await store.cache.apply(
      [
        deployment,
        replicaSet(1),
        policy('web', { matchLabels: { app: 'web' } }),
        policy('api', { matchLabels: { app: 'api' } }),
        policy('everything', {}),
        policy('web-or-api', { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }),
        policy('not-web', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }),
      ],
      NOW,
    );
    expect((await webServerGroup()).securityGroups).toEqual([
      'networkPolicy everything',
      'networkPolicy web',
      'networkPolicy web-or-api',
    ]);
    await store.cache.apply(
      [
        {
          type: 'delete',
          account: ACCOUNT,
          group: 'networking.k8s.io',
          kind: 'NetworkPolicy',
          namespace: NS,
          name: 'web',
        },
      ],
      NOW,
    );
    expect((await webServerGroup()).securityGroups).toEqual([
      'networkPolicy everything',
      'networkPolicy web-or-api',
    ]);
  });

  it('follows updates and deletes: a scale, a pod gone, the Service gone', async () => {
    await store.cache.apply(
      [deployment, replicaSet(2), pod('web-1-a', 'Running', true), pod('web-1-b', 'Running', true), service],
      NOW,
    );
    await store.cache.apply(
      [
        replicaSet(1),
        { type: 'delete', account: ACCOUNT, group: '', kind: 'Pod', namespace: NS, name: 'web-1-b' },
        { type: 'delete', account: ACCOUNT, group: '', kind: 'Service', namespace: NS, name: 'web' },
      ],
      NOW,
    );
    const sg = await webServerGroup();
    expect(sg.capacity.desired).toBe(1);
    expect(sg.instanceCounts.total).toBe(1);
    expect(sg.disabled).toBe(true);
    expect(sg.loadBalancers).toEqual([]);
  });

  it('drops the rows of objects a relist lacked when the snapshot ends', async () => {
    await store.cache.apply(
      [deployment, replicaSet(1), pod('web-1-a', 'Running', true), pod('web-1-b', 'Running', true)],
      NOW,
    );
    const scope = { account: ACCOUNT, group: '', kind: 'Pod', namespace: '' };
    await store.cache.apply(
      [
        { type: 'snapshotBegin', scope, snapshotId: 's1' },
        { ...pod('web-1-b', 'Running', true), snapshotId: 's1' },
        { type: 'snapshotEnd', scope, snapshotId: 's1', resourceVersion: '9' },
      ],
      NOW,
    );
    expect((await webServerGroup()).instances.map((i) => i.name)).toEqual(['pod web-1-b']);
    expect((await store.readModel.byRole([ACCOUNT], 'instance')).map((o) => o.name)).toEqual(['web-1-b']);
  });

  it('indexes objects read on demand and forgets evicted ones', async () => {
    await store.cache.refresh(
      {
        account: ACCOUNT,
        group: 'networking.k8s.io',
        version: 'v1',
        kind: 'NetworkPolicy',
        namespace: NS,
        name: 'deny',
        resourceVersion: '5',
        body: JSON.stringify({ metadata: { name: 'deny', namespace: NS }, spec: { podSelector: {} } }),
      },
      NOW,
    );
    expect((await store.readModel.byRole([ACCOUNT], 'securityGroup')).map((o) => o.name)).toEqual(['deny']);
    await store.cache.evict(
      { account: ACCOUNT, group: 'networking.k8s.io', kind: 'NetworkPolicy', namespace: NS, name: 'deny' },
      NOW,
    );
    expect(await store.readModel.byRole([ACCOUNT], 'securityGroup')).toEqual([]);
  });

  it('reads an application only in the accounts given, and searches names and applications', async () => {
    await store.cache.apply([deployment, replicaSet(1), pod('web-1-a', 'Running', true)], NOW);
    expect((await store.readModel.application('shop', ['other'])).objects).toEqual([]);
    const found = await store.readModel.search([ACCOUNT], ['serverGroup', 'instance'], 'WEB-1', 0, 10);
    expect(found.total).toBe(2);
    expect(found.objects.map((o) => `${o.spinnakerKind} ${o.name}`)).toEqual([
      'pod web-1-a',
      'replicaSet web-1',
    ]);
    expect((await store.readModel.search([ACCOUNT], ['instance'], '%', 0, 10)).total).toBe(0);
  });
});

// An object of no role (a ConfigMap) is indexed only when one of the application keys names its
// application; the index rules most such bodies out by a substring search before any parse, so each
// key is checked to still let its object through.
describe('ReadIndex.derive for objects of no role', () => {
  const index = new ReadIndex();
  const configMap = (metadata: Record<string, unknown>) => ({
    account: ACCOUNT,
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    namespace: NS,
    name: 'settings',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { 'a.yaml': 'x: 1\n' } }),
  });
  const application = (values: readonly unknown[]) =>
    values[INDEX_COLUMNS.findIndex((c) => c.name === 'application')];

  it.each([
    ['the moniker annotation', { annotations: { 'moniker.spinnaker.io/application': 'shop' } }],
    ['the deployment mark', { annotations: { 'deploy.vendor.io/application': 'shop' } }],
    ['the recommended label', { labels: { 'app.kubernetes.io/name': 'shop' } }],
  ])('indexes one named by %s', (_, metadata) => {
    expect(application(index.derive(configMap({ name: 'settings', ...metadata })))).toBe('shop');
  });

  it('indexes nothing for one without an application, with other well-known keys or none', () => {
    for (const metadata of [
      { name: 'settings' },
      { name: 'settings', annotations: { 'kubernetes.io/description': 'root CA' } },
    ]) {
      expect(index.derive(configMap(metadata)).every((value) => value === null)).toBe(true);
    }
  });
});
