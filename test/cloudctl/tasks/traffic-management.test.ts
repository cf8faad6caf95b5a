// Traffic management on deploy as pure rules: the two spellings of the request settled, the
// ReplicaSet annotated and labelled, every refusal clouddriver or Deck makes (a 400 naming the
// field), and each strategy's follow-up over the cluster's other versions.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PayloadError } from '../../../src/cloudctl/tasks/converters/index.ts';
import {
  applyTrafficManagement,
  servicesToLookUp,
  type TrafficManagement,
  type TrafficManifest,
  trafficFields,
  trafficManagementOf,
} from '../../../src/cloudctl/tasks/converters/traffic/index.ts';

const fields = z.object(trafficFields);
const traffic = (payload: Record<string, unknown>) => trafficManagementOf(fields.parse(payload));

const replicaSet = (
  annotations: Record<string, string> = {},
  labels: Record<string, string> = { app: 'web' },
) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'prod', annotations },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
  },
});
const service = (name: string, selector?: Record<string, string>, namespace = 'prod') => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: selector === undefined ? { ports: [{ port: 80 }] } : { selector, ports: [{ port: 80 }] },
});
const FRONT = service('front', { traffic: 'web-front' });
const ON: TrafficManagement = {
  enabled: true,
  services: ['service front'],
  enableTraffic: true,
  strategy: 'redblack',
};

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof PayloadError) return { path: error.path, message: error.message };
    throw error;
  }
  throw new Error('expected a PayloadError');
}

describe('trafficManagementOf', () => {
  it("takes clouddriver's flat fields, with enableTraffic true by default", () => {
    expect(traffic({ services: ['service front'], strategy: 'RED_BLACK' })).toEqual(ON);
    expect(traffic({})).toEqual({ enabled: false, services: [], enableTraffic: true, strategy: 'none' });
  });

  it("fills in from Orca's trafficManagement block when it is enabled, and ignores it when not", () => {
    const block = { services: ['service front'], enableTraffic: false, strategy: 'highlander' };
    expect(traffic({ trafficManagement: { enabled: true, options: block } })).toEqual({
      enabled: true,
      services: ['service front'],
      enableTraffic: false,
      strategy: 'highlander',
    });
    expect(traffic({ trafficManagement: { enabled: false, options: block } }).enabled).toBe(false);
  });

  it('lets a flat field win over the block, and reads bluegreen as redblack', () => {
    const payload = {
      services: ['service one'],
      strategy: 'BLUE_GREEN',
      trafficManagement: { enabled: true, options: { services: ['service two'], strategy: 'none' } },
    };
    expect(traffic(payload)).toMatchObject({ services: ['service one'], strategy: 'redblack' });
  });

  it('refuses an unknown strategy', () => {
    expect(fields.safeParse({ strategy: 'canary' }).success).toBe(false);
  });
});

describe('applyTrafficManagement', () => {
  it("annotates the ReplicaSet and adds the Service's selector labels to its pod template", () => {
    const result = applyTrafficManagement([replicaSet()], ON, [FRONT]);
    const [rs] = result.manifests;
    expect(rs?.metadata).toMatchObject({
      annotations: { 'traffic.spinnaker.io/load-balancers': '["service front"]' },
    });
    expect(rs?.spec).toMatchObject({
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', traffic: 'web-front' } } },
    });
    expect(result.plan).toEqual({
      strategy: 'redblack',
      serverGroup: { manifestName: 'replicaSet web', namespace: 'prod' },
      disableOthers: true,
      deleteOthers: false,
    });
  });

  it('annotates without labels when enableTraffic is false: the new version starts disabled', () => {
    const [rs] = applyTrafficManagement([replicaSet()], { ...ON, enableTraffic: false }, [FRONT]).manifests;
    expect(rs?.metadata.annotations).toEqual({ 'traffic.spinnaker.io/load-balancers': '["service front"]' });
    expect(rs?.spec).toMatchObject({ template: { metadata: { labels: { app: 'web' } } } });
    expect(JSON.stringify(rs?.spec)).not.toContain('traffic');
  });

  it('uses a Service deployed in the same request before the cluster one, and passes it through', () => {
    const inRequest = service('front', { lane: 'blue' });
    const out = applyTrafficManagement([inRequest, replicaSet()], ON, [FRONT]).manifests;
    expect(out[0]).toBe(inRequest);
    expect(out[1]?.spec).toMatchObject({ template: { metadata: { labels: { app: 'web', lane: 'blue' } } } });
  });

  it("honours a ReplicaSet's own annotation without traffic management asked, as clouddriver does", () => {
    const annotated = replicaSet({ 'traffic.spinnaker.io/load-balancers': '["service front"]' });
    const none = traffic({});
    const result = applyTrafficManagement([annotated], none, [FRONT]);
    expect(result.manifests[0]?.spec).toMatchObject({
      template: { metadata: { labels: { traffic: 'web-front' } } },
    });
    expect(result.plan).toMatchObject({ strategy: 'none', disableOthers: false, deleteOthers: false });
  });

  it('changes nothing when traffic management is off and nothing is annotated', () => {
    const manifests = [replicaSet(), FRONT];
    const result = applyTrafficManagement(manifests, traffic({}), []);
    expect(result.manifests).toEqual(manifests);
    expect(result.plan).toEqual({ strategy: 'none', disableOthers: false, deleteOthers: false });
  });

  it('refuses a missing Service, one without selector, and a load balancer that is not a Service', () => {
    expect(refusal(() => applyTrafficManagement([replicaSet()], ON, []))).toEqual({
      path: 'services',
      message: 'service front not found in namespace prod',
    });
    expect(
      refusal(() => applyTrafficManagement([replicaSet()], ON, [service('front', undefined, 'other')])),
    ).toEqual({
      path: 'services',
      message: 'service front not found in namespace prod',
    });
    expect(refusal(() => applyTrafficManagement([replicaSet()], ON, [service('front')]))).toMatchObject({
      path: 'services',
      message: 'service front has no selector: it sends traffic to no pods by label',
    });
    const ingress = { ...ON, services: ['ingress front'] };
    expect(refusal(() => applyTrafficManagement([replicaSet()], ingress, [FRONT]))).toEqual({
      path: 'services[0]',
      message: "'ingress front' is not a Service: only Services can send traffic to pods",
    });
  });

  it('refuses a selector sharing a label key with the pod template, as clouddriver does', () => {
    const labelled = replicaSet({}, { app: 'web', traffic: 'web-front' });
    expect(refusal(() => applyTrafficManagement([labelled], ON, [FRONT]))).toMatchObject({
      path: 'services',
      message: expect.stringContaining(
        'service front selects by traffic, which the pod template already has',
      ),
    });
  });

  it('refuses every workload but one ReplicaSet', () => {
    const deployment = { ...replicaSet(), kind: 'Deployment' };
    expect(refusal(() => applyTrafficManagement([FRONT, deployment], ON, [FRONT]))).toEqual({
      path: 'manifests[1]',
      message:
        'traffic management applies to a ReplicaSet only, and this is a Deployment: deploy one ReplicaSet, or turn traffic management off',
    });
    const two = [replicaSet(), { ...replicaSet(), metadata: { name: 'web2', namespace: 'prod' } }];
    expect(refusal(() => applyTrafficManagement(two, ON, [FRONT]))).toMatchObject({ path: 'manifests' });
    expect(refusal(() => applyTrafficManagement([FRONT], ON, [FRONT]))).toMatchObject({
      path: 'manifests',
      message: 'traffic management needs exactly one ReplicaSet in the request, found 0',
    });
  });

  it('refuses an annotation that contradicts services, and no Service at all', () => {
    const other = replicaSet({ 'traffic.spinnaker.io/load-balancers': '["service back"]' });
    expect(refusal(() => applyTrafficManagement([other], ON, [FRONT]))).toMatchObject({
      path: 'manifests[0].metadata.annotations',
    });
    const enabledNoServices = { ...ON, services: [] };
    expect(refusal(() => applyTrafficManagement([replicaSet()], enabledNoServices, [FRONT]))).toEqual({
      path: 'services',
      message: 'traffic management needs at least one Service',
    });
  });

  it('refuses a strategy without traffic management, and redblack with max-version-history under 2', () => {
    const strategyOnly = { ...traffic({}), strategy: 'highlander' as const };
    expect(refusal(() => applyTrafficManagement([replicaSet()], strategyOnly, []))).toMatchObject({
      path: 'strategy',
    });
    const short = replicaSet({ 'strategy.spinnaker.io/max-version-history': '1' });
    expect(refusal(() => applyTrafficManagement([short], ON, [FRONT]))).toMatchObject({
      path: 'manifests[0].metadata.annotations',
    });
  });

  it("keeps the caller's manifest type", () => {
    const typed: (TrafficManifest & { extra: number })[] = [{ ...replicaSet(), extra: 1 }];
    const [rs] = applyTrafficManagement(typed, ON, [FRONT]).manifests;
    expect(rs?.extra).toBe(1);
  });
});

describe('servicesToLookUp', () => {
  it('names the Services the ReplicaSet needs that the request does not deploy', () => {
    const both = { ...ON, services: ['service front', 'service back'] };
    expect(servicesToLookUp([service('back', { lane: 'b' }), replicaSet()], both)).toEqual([
      { namespace: 'prod', name: 'front' },
    ]);
    expect(servicesToLookUp([replicaSet()], traffic({}))).toEqual([]);
  });
});
