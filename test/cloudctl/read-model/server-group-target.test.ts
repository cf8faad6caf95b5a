// Dynamic targets pick a server group of a cluster by age or size, as pipelines name them.
import { describe, expect, it } from 'vitest';
import type { ServerGroup } from '../../../src/cloudctl/read-model/records.ts';
import { pickTarget } from '../../../src/cloudctl/read-model/server-group-target.ts';

function sg(name: string, createdTime: number, total: number): ServerGroup {
  return {
    name,
    displayName: name,
    account: 'a',
    region: 'ns',
    namespace: 'ns',
    zones: [],
    kind: 'replicaSet',
    cloudProvider: 'orchestrator',
    type: 'orchestrator',
    cluster: 'deployment web',
    moniker: { app: 'shop', cluster: 'deployment web' },
    createdTime,
    disabled: false,
    capacity: { min: total, max: total, desired: total, pinned: false },
    instanceCounts: { total, up: total, down: 0, starting: 0, outOfService: 0, unknown: 0 },
    instances: [],
    loadBalancers: [],
    securityGroups: [],
    serverGroupManagers: [],
    labels: {},
  };
}

const v1 = sg('replicaSet web-1', 1_000, 5);
const v2 = sg('replicaSet web-2', 2_000, 1);
const v3 = sg('replicaSet web-3', 3_000, 2);
const name = (outcome: ReturnType<typeof pickTarget>) =>
  'found' in outcome ? outcome.found.name : outcome.missing;

describe('dynamic server group targets', () => {
  it('names the newest, the one before it, the oldest and the largest by creation time and instances', () => {
    const all = [v2, v1, v3];
    expect(name(pickTarget(all, 'current_asg_dynamic', true))).toBe('replicaSet web-3');
    expect(name(pickTarget(all, 'newest', true))).toBe('replicaSet web-3');
    expect(name(pickTarget(all, 'ancestor_asg_dynamic', true))).toBe('replicaSet web-2');
    expect(name(pickTarget(all, 'oldest', true))).toBe('replicaSet web-1');
    expect(name(pickTarget(all, 'largest', true))).toBe('replicaSet web-1');
  });

  it('finds no ancestor of a single server group, and no oldest unless validateOldest is off', () => {
    expect(pickTarget([v1], 'ancestor', true)).toHaveProperty('missing');
    expect(pickTarget([v1], 'oldest', true)).toHaveProperty('missing');
    expect(name(pickTarget([v1], 'oldest', false))).toBe('replicaSet web-1');
    expect(pickTarget([], 'newest', true)).toHaveProperty('missing');
  });

  it('`fail` names the only server group and refuses several', () => {
    expect(name(pickTarget([v1], 'fail', true))).toBe('replicaSet web-1');
    expect(pickTarget([v1, v2], 'fail', true)).toHaveProperty('missing');
  });
});

describe('dynamic targets of versions made within one second', () => {
  it('order by moniker sequence where both versions carry one', () => {
    const at = (name: string, sequence: number) => ({
      ...sg(name, 5_000, 1),
      moniker: { app: 'shop', cluster: 'replicaSet web', sequence },
    });
    const all = [at('replicaSet web-b', 1), at('replicaSet web-a', 2), at('replicaSet web-c', 0)];
    expect(name(pickTarget(all, 'current_asg_dynamic', true))).toBe('replicaSet web-a');
    expect(name(pickTarget(all, 'ancestor_asg_dynamic', true))).toBe('replicaSet web-b');
    expect(name(pickTarget(all, 'oldest_asg_dynamic', true))).toBe('replicaSet web-c');
  });
});
