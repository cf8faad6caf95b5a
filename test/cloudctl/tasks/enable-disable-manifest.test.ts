// enableManifest and disableManifest as converters: the Services they act for (payload, else the
// ReplicaSet's annotation), the merge patches of the pod template and of each pod, and the 400s.
// The cluster lookups are an in-memory table standing for the cache, passed in as cloudctl does.
import { describe, expect, it } from 'vitest';
import {
  type ClusterLookups,
  type ClusterReads,
  CONVERTERS,
  type ConverterContext,
  PayloadError,
} from '../../../src/cloudctl/tasks/converters/index.ts';

type Objects = Record<string, Record<string, unknown>>;

function context(objects: Objects, pods: Record<string, Record<string, string>> = {}): ConverterContext {
  const cache: ClusterLookups = {
    object: async (_account, kind, namespace, name) => objects[`${kind}/${namespace}/${name}`],
    podsOf: async (_account, _namespace, _kind, name) =>
      Object.entries(pods)
        .filter(([pod]) => pod.startsWith(`${name}-`))
        .map(([pod, labels]) => ({ name: pod, labels })),
  };
  // enable and disable read only what the cache saw; a read of the live cluster would be a defect here.
  const cluster: ClusterReads = {
    describe: () => Promise.reject(new Error('enable/disable must not read the live cluster')),
    list: () => Promise.reject(new Error('enable/disable must not read the live cluster')),
  };
  return { kinds: { resolve: async () => undefined }, cluster, cache };
}

const converter = (name: string) => {
  const found = CONVERTERS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no converter ${name}`);
  return found;
};

async function steps(name: string, payload: Record<string, unknown>, ctx: ConverterContext) {
  const c = converter(name);
  return c.toAgent(c.payload.parse(payload), ctx);
}

async function refusal(name: string, payload: Record<string, unknown>, ctx: ConverterContext) {
  try {
    await steps(name, payload, ctx);
  } catch (error) {
    if (error instanceof PayloadError) return { path: error.path, message: error.message };
    throw error;
  }
  throw new Error('expected a PayloadError');
}

const replicaSet = (annotations: Record<string, string> = {}, selector = { app: 'web' }) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web-v001', namespace: 'prod', annotations },
  spec: { selector: { matchLabels: selector }, template: { metadata: { labels: { app: 'web' } } } },
});
const service = (name: string, selector?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'prod' },
  spec: selector === undefined ? {} : { selector },
});
const ANNOTATED = { 'traffic.spinnaker.io/load-balancers': '["service front"]' };
const target = { account: 'k8s', manifestName: 'replicaSet web-v001', location: 'prod' };

describe('disableManifest', () => {
  const ctx = context(
    {
      'replicaSet/prod/web-v001': replicaSet(ANNOTATED),
      'service/prod/front': service('front', { traffic: 'web-front' }),
    },
    { 'web-v001-a': { app: 'web', traffic: 'web-front' }, 'web-v001-b': { app: 'web' } },
  );

  it("removes the annotated Services' selector labels from the template, then from each pod", async () => {
    const out = await steps('disableManifest', target, ctx);
    expect(out.map((s) => [s.type, s.payload])).toEqual([
      [
        'patch',
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          namespace: 'prod',
          name: 'web-v001',
          patchType: 'merge',
          patch: { spec: { template: { metadata: { labels: { traffic: null } } } } },
          ignoreNotFound: false,
        },
      ],
      ...['web-v001-a', 'web-v001-b'].map((pod) => [
        'patch',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace: 'prod',
          name: pod,
          patchType: 'merge',
          patch: { metadata: { labels: { traffic: null } } },
          ignoreNotFound: true,
        },
      ]),
    ]);
    expect(out.every((s) => s.account === 'k8s')).toBe(true);
    expect(out[1]?.description).toBe('Disabling pod web-v001-a in service front');
  });

  it('refuses to remove a label the ReplicaSet selects its own pods by', async () => {
    const own = context({
      'replicaSet/prod/web-v001': replicaSet(ANNOTATED, { app: 'web' }),
      'service/prod/front': service('front', { app: 'web' }),
    });
    expect(await refusal('disableManifest', target, own)).toEqual({
      path: 'manifestName',
      message: 'replicaSet web-v001 selects its pods by app: removing it would orphan them',
    });
  });
});

describe('enableManifest', () => {
  const ctx = context(
    {
      'replicaSet/prod/web-v001': replicaSet(),
      'service/prod/front': service('front', { traffic: 'web-front' }),
      'service/prod/canary': service('canary', { canary: 'yes', traffic: 'web-front' }),
    },
    { 'web-v001-a': { app: 'web' } },
  );

  it("sets every given Service's selector labels on the template and the pods", async () => {
    const out = await steps(
      'enableManifest',
      { ...target, loadBalancers: ['service front', 'Service canary'] },
      ctx,
    );
    const labels = { traffic: 'web-front', canary: 'yes' };
    expect(out.map((s) => (s.payload as { patch: unknown }).patch)).toEqual([
      { spec: { template: { metadata: { labels } } } },
      { metadata: { labels } },
    ]);
  });

  it('refuses a ReplicaSet with neither loadBalancers nor the annotation', async () => {
    expect(await refusal('enableManifest', target, ctx)).toMatchObject({ path: 'loadBalancers' });
  });

  it('refuses a missing Service, a Service without selector, and what is not a Service', async () => {
    const more = context({
      'replicaSet/prod/web-v001': replicaSet(),
      'service/prod/bare': service('bare'),
    });
    expect(await refusal('enableManifest', { ...target, loadBalancers: ['service gone'] }, more)).toEqual({
      path: 'loadBalancers',
      message: 'service gone not found in namespace prod',
    });
    expect(await refusal('enableManifest', { ...target, loadBalancers: ['service bare'] }, more)).toEqual({
      path: 'loadBalancers',
      message: 'service bare has no selector: it sends traffic to no pods by label',
    });
    expect(await refusal('enableManifest', { ...target, loadBalancers: ['ingress web'] }, more)).toEqual({
      path: 'loadBalancers',
      message: "'ingress web' is not a Service: only Services can send traffic to pods",
    });
    expect(await refusal('enableManifest', { ...target, loadBalancers: ['web'] }, more)).toMatchObject({
      path: 'loadBalancers',
    });
  });

  it('refuses Services that disagree on a label value', async () => {
    const clash = context({
      'replicaSet/prod/web-v001': replicaSet(),
      'service/prod/a': service('a', { tier: 'one' }),
      'service/prod/b': service('b', { tier: 'two' }),
    });
    const payload = { ...target, loadBalancers: ['service a', 'service b'] };
    expect(await refusal('enableManifest', payload, clash)).toMatchObject({
      path: 'loadBalancers',
      message: "the Services disagree on label tier ('one', 'two')",
    });
  });

  it('refuses a ReplicaSet the cache does not hold, other kinds, and a malformed annotation', async () => {
    expect(await refusal('enableManifest', target, context({}))).toEqual({
      path: 'manifestName',
      message: 'replicaSet web-v001 not found in namespace prod',
    });
    expect(await refusal('enableManifest', { ...target, manifestName: 'deployment web' }, ctx)).toMatchObject(
      { path: 'manifestName', message: 'a deployment cannot be enabled: name a replicaSet' },
    );
    const bad = context({
      'replicaSet/prod/web-v001': replicaSet({ 'traffic.spinnaker.io/load-balancers': 'service front' }),
    });
    expect(await refusal('enableManifest', target, bad)).toMatchObject({ path: 'manifestName' });
  });

  it('takes only a targetPercentage of 100', () => {
    const parsed = converter('enableManifest').payload.safeParse({ ...target, targetPercentage: 50 });
    expect(parsed.success).toBe(false);
    expect(converter('enableManifest').payload.safeParse({ ...target, targetPercentage: 100 }).success).toBe(
      true,
    );
  });
});
