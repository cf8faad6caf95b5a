// An account's spinnakerKindMap: clouddriver's kinds with their Spinnaker kinds, and the account's
// custom kinds (declared, defined by a cached CRD, or cached) as unclassified, keyed in lower case as
// clients look them up (`crontab.stable.example.com`); native kinds without a handler are left out.
import { describe, expect, it } from 'vitest';
import { spinnakerKindMap } from '../../src/cloudctl/credentials/spinnaker-kind-map.ts';

const cached = (group: string, version: string, kind: string) => ({
  account: 'prod',
  group,
  kind,
  version,
  namespaced: true,
  count: 1,
});

describe('spinnakerKindMap', () => {
  it('maps the built-in kinds as clouddriver’s handlers do', () => {
    expect(spinnakerKindMap([])).toMatchObject({
      deployment: 'serverGroupManagers',
      replicaSet: 'serverGroups',
      statefulSet: 'serverGroups',
      daemonSet: 'serverGroups',
      job: 'serverGroups',
      cronJob: 'serverGroups',
      service: 'loadBalancers',
      ingress: 'loadBalancers',
      pod: 'instances',
      networkPolicy: 'securityGroups',
      configMap: 'configs',
      secret: 'configs',
      persistentVolumeClaim: 'configs',
      namespace: 'unclassified',
      horizontalpodautoscaler: 'unclassified',
    });
  });

  it('adds declared, defined and cached custom kinds as unclassified, not cached native kinds without a handler', () => {
    const map = spinnakerKindMap(
      [
        cached('argoproj.io', 'v1alpha1', 'Rollout'),
        cached('', 'v1', 'Endpoints'),
        cached('apps', 'v1', 'ReplicaSet'),
      ],
      { customResourceDefinitions: [{ kind: 'CronTab.stable.example.com', scope: 'Namespaced' }] },
      [{ account: 'prod', group: 'cert-manager.io', kind: 'Certificate' }],
    );
    expect(map['rollout.argoproj.io']).toBe('unclassified');
    expect(map['crontab.stable.example.com']).toBe('unclassified');
    expect(map['certificate.cert-manager.io']).toBe('unclassified');
    expect(map).not.toHaveProperty('CronTab.stable.example.com');
    expect(map).not.toHaveProperty('endpoints');
    expect(map.replicaSet).toBe('serverGroups');
  });
});
