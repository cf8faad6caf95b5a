// The mapping from a Kubernetes object to what the read model keeps: application and cluster from
// the moniker, the role by kind, the controlling owner, selectors, and the status figures.
import { describe, expect, it } from 'vitest';
import { indexObject, selects } from '../../../src/cloudctl/read-model/index.ts';
import { jobState } from '../../../src/cloudctl/read-model/job-routes.ts';
import { healthState } from '../../../src/cloudctl/read-model/views.ts';

const id = (group: string, kind: string, name: string, version = 'v1') => ({ group, version, kind, name });
const body = (metadata: Record<string, unknown>, rest: Record<string, unknown> = {}) =>
  JSON.stringify({ metadata, ...rest });

describe('application and cluster', () => {
  it('takes the application from the moniker annotation before the deployment mark and the label', () => {
    const all = body({
      name: 'web',
      annotations: { 'moniker.spinnaker.io/application': 'shop', 'deploy.vendor.io/application': 'mark' },
      labels: { 'app.kubernetes.io/name': 'label' },
    });
    expect(indexObject(id('apps', 'Deployment', 'web'), all).application).toBe('shop');
    const marked = body({
      name: 'web',
      annotations: { 'deploy.vendor.io/application': 'mark' },
      labels: { 'app.kubernetes.io/name': 'label' },
    });
    expect(indexObject(id('apps', 'Deployment', 'web'), marked).application).toBe('mark');
    const labelled = body({ name: 'web', labels: { 'app.kubernetes.io/name': 'label' } });
    expect(indexObject(id('apps', 'Deployment', 'web'), labelled).application).toBe('label');
    expect(indexObject(id('apps', 'Deployment', 'web'), body({ name: 'web' })).application).toBeNull();
  });

  it('takes the cluster from the moniker, else "kind name", and a Deployment’s ReplicaSet joins its cluster', () => {
    const annotated = body({
      name: 'web',
      annotations: {
        'moniker.spinnaker.io/application': 'shop',
        'moniker.spinnaker.io/cluster': 'web-main',
        'moniker.spinnaker.io/stack': 'prod',
        'moniker.spinnaker.io/detail': 'eu',
      },
    });
    expect(indexObject(id('apps', 'StatefulSet', 'web'), annotated)).toMatchObject({
      cluster: 'web-main',
      stack: 'prod',
      detail: 'eu',
    });
    const plain = body({ name: 'db', labels: { 'app.kubernetes.io/name': 'shop' } });
    expect(indexObject(id('apps', 'StatefulSet', 'db'), plain).cluster).toBe('statefulSet db');
    const owned = body({
      name: 'web-7f7f',
      labels: { 'app.kubernetes.io/name': 'shop' },
      annotations: { 'deployment.kubernetes.io/revision': '3' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', controller: true },
      ],
    });
    expect(indexObject(id('apps', 'ReplicaSet', 'web-7f7f'), owned)).toMatchObject({
      cluster: 'deployment web',
      sequence: 3,
      owner: { kind: 'deployment', name: 'web', uid: 'u1' },
      spinnakerKind: 'replicaSet',
    });
  });
});

describe('roles', () => {
  it.each([
    ['apps', 'ReplicaSet', 'serverGroup'],
    ['apps', 'StatefulSet', 'serverGroup'],
    ['apps', 'DaemonSet', 'serverGroup'],
    ['apps', 'Deployment', 'serverGroupManager'],
    ['', 'Pod', 'instance'],
    ['', 'Service', 'loadBalancer'],
    ['networking.k8s.io', 'Ingress', 'loadBalancer'],
    ['networking.k8s.io', 'NetworkPolicy', 'securityGroup'],
    ['batch', 'Job', 'job'],
    ['', 'ConfigMap', 'raw'],
    ['argoproj.io', 'Rollout', 'raw'],
  ])('%s/%s is a %s', (group, kind, role) => {
    expect(indexObject(id(group, kind, 'x'), body({ name: 'x' })).role).toBe(role);
  });

  it('spells custom kinds as Kind.group', () => {
    expect(
      indexObject(id('argoproj.io', 'Rollout', 'x', 'v1alpha1'), body({ name: 'x' })).spinnakerKind,
    ).toBe('Rollout.argoproj.io');
  });
});

describe('figures and selectors', () => {
  it('keeps desired replicas (1 when unset, a DaemonSet’s scheduled count) and template labels', () => {
    const rs = body(
      { name: 'a' },
      { spec: { replicas: 3, template: { metadata: { labels: { app: 'a' } } } } },
    );
    expect(indexObject(id('apps', 'ReplicaSet', 'a'), rs).summary).toEqual({
      desired: 3,
      templateLabels: { app: 'a' },
      images: [],
    });
    const withImages = body(
      { name: 'a' },
      { spec: { template: { spec: { containers: [{ image: 'web:2' }, { image: 'proxy:1' }] } } } },
    );
    expect(indexObject(id('apps', 'ReplicaSet', 'a'), withImages).summary.images).toEqual([
      'web:2',
      'proxy:1',
    ]);
    expect(
      indexObject(id('apps', 'StatefulSet', 'a'), body({ name: 'a' }, { spec: {} })).summary.desired,
    ).toBe(1);
    const ds = body({ name: 'a' }, { spec: {}, status: { desiredNumberScheduled: 4 } });
    expect(indexObject(id('apps', 'DaemonSet', 'a'), ds).summary.desired).toBe(4);
  });

  it('reads a pod’s phase and Ready condition into a health state', () => {
    const pod = (phase: string, ready: string) =>
      indexObject(
        id('', 'Pod', 'p'),
        body({ name: 'p' }, { status: { phase, conditions: [{ type: 'Ready', status: ready }] } }),
      ).summary;
    expect(pod('Running', 'True')).toMatchObject({ phase: 'Running', ready: true });
    expect(healthState('Running', true)).toBe('Up');
    expect(healthState('Running', false)).toBe('Down');
    expect(healthState('Pending', false)).toBe('Starting');
    expect(healthState('Failed', false)).toBe('Failed');
    expect(healthState(undefined, undefined)).toBe('Unknown');
    expect(pod('Running', 'False').ready).toBe(false);
    const withContainers = body(
      { name: 'p' },
      { spec: { containers: [{ name: 'app' }, { name: 'proxy' }] } },
    );
    expect(indexObject(id('', 'Pod', 'p'), withContainers).summary.containers).toEqual(['app', 'proxy']);
  });

  it('turns a Service selector into matchLabels, and lists an Ingress’s backend Services', () => {
    const svc = indexObject(
      id('', 'Service', 's'),
      body({ name: 's' }, { spec: { selector: { app: 'a' } } }),
    );
    expect(svc.selector).toEqual({ matchLabels: { app: 'a' }, matchExpressions: [] });
    expect(svc.summary.loadBalancerType).toBe('ClusterIP');
    const ing = indexObject(
      id('networking.k8s.io', 'Ingress', 'i'),
      body(
        { name: 'i' },
        {
          spec: {
            defaultBackend: { service: { name: 'z' } },
            rules: [{ http: { paths: [{ backend: { service: { name: 'a' } } }] } }],
          },
        },
      ),
    );
    expect(ing.summary).toEqual({ loadBalancerType: 'ingress', backendServices: ['a', 'z'] });
  });

  it('matches selectors as Kubernetes does', () => {
    const labels = { app: 'a', tier: 'web' };
    expect(selects({ matchLabels: { app: 'a' }, matchExpressions: [] }, labels)).toBe(true);
    expect(selects({ matchLabels: { app: 'b' }, matchExpressions: [] }, labels)).toBe(false);
    expect(
      selects(
        { matchLabels: {}, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
        labels,
      ),
    ).toBe(true);
    expect(
      selects(
        { matchLabels: {}, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] },
        labels,
      ),
    ).toBe(false);
    expect(
      selects(
        { matchLabels: {}, matchExpressions: [{ key: 'x', operator: 'DoesNotExist', values: [] }] },
        labels,
      ),
    ).toBe(true);
    expect(
      selects({ matchLabels: {}, matchExpressions: [{ key: 'x', operator: 'Exists', values: [] }] }, labels),
    ).toBe(false);
  });

  it("reads a Job's counts and final condition into its state", () => {
    const job = (status: Record<string, unknown>) =>
      indexObject(id('batch', 'Job', 'j'), body({ name: 'j' }, { status })).summary;
    const complete = job({
      succeeded: 1,
      completionTime: '2026-01-01T00:00:00Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    expect(complete).toEqual({
      active: 0,
      succeeded: 1,
      failed: 0,
      completionTime: '2026-01-01T00:00:00Z',
      jobCondition: 'Complete',
    });
    expect(jobState(complete)).toBe('Succeeded');
    expect(jobState(job({ failed: 2, conditions: [{ type: 'Failed', status: 'True' }] }))).toBe('Failed');
    expect(jobState(job({ active: 1 }))).toBe('Running');
    expect(jobState(job({}))).toBe('Starting');
  });

  it('survives a body that is not JSON', () => {
    expect(indexObject(id('', 'ConfigMap', 'c'), '{').role).toBe('raw');
  });
});
