// What a mesh entry writes, from what the cluster has: each object a forced server-side apply of only
// the fields cloudctl steers (a copied Service keeps the root's ports but not its node ports), and the
// file's names that do not fit the cluster said with what is there (a root selecting no workload's
// pods, a VirtualService whose route cannot be told, a missing object).
import { describe, expect, it } from 'vitest';
import {
  ISTIO_API,
  TRAFFIC_SPLIT_API,
  type TrafficTarget,
  trafficWrites,
} from '../../../src/cloudctl/deployments/run/traffic/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';

const VERSION = 'deploy.vendor.io/version';

/** A target whose one workload `web` runs v1 and rolls out v2, the cluster holding `objects`. */
function target(objects: Array<Record<string, unknown>>): TrafficTarget {
  return {
    application: 'shop',
    name: 'prod',
    namespace: 'shop',
    workloads: [
      {
        name: 'web',
        namespace: 'shop',
        replicaSet: 'web-v2',
        version: 'v2',
        desired: 4,
        previous: [{ name: 'web-v1', version: 'v1', replicas: 4 }],
      },
    ],
    manifests: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { template: { metadata: { labels: { app: 'web', tier: 'front' } } } },
      },
    ],
    get: async (ref) =>
      objects.find(
        (o) => o.kind === ref.kind && (isRecord(o.metadata) ? o.metadata.name : undefined) === ref.name,
      ),
  };
}

const rootService = (selector: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web' },
  spec: {
    type: 'NodePort',
    clusterIP: '10.0.0.7',
    selector,
    ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080, protocol: 'TCP' }],
  },
});

const smi = { smi: [{ rootServiceName: 'web' }], istio: [], kubernetes: undefined };

const virtualService = (http: unknown[]) => ({
  apiVersion: ISTIO_API,
  kind: 'VirtualService',
  metadata: { name: 'web-vs' },
  spec: { hosts: ['web.example'], http },
});
const destinationRule = {
  apiVersion: ISTIO_API,
  kind: 'DestinationRule',
  metadata: { name: 'web-dr' },
  spec: { host: 'web.shop.svc.cluster.local', subsets: [{ name: 'stable', labels: { track: 'main' } }] },
};
const istio = (httpRouteName?: string) => ({
  smi: [],
  istio: [
    {
      virtualService: { name: 'web-vs', ...(httpRouteName === undefined ? {} : { httpRouteName }) },
      destinationRule: { name: 'web-dr', activeSubsetName: 'stable', canarySubsetName: 'canary' },
    },
  ],
  kubernetes: undefined,
});

describe('smi writes', () => {
  it('apply the canary and stable Services and the split, forced, server-side, nothing more', async () => {
    const writes = await trafficWrites(target([rootService({ app: 'web' })]), smi, {
      canaryWeight: 25,
      stable: 'previous',
    });
    const ports = [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }];
    const metadata = (name: string) => ({
      name,
      namespace: 'shop',
      annotations: {
        'agent-orch.vendor.io/serverside-apply': 'enabled',
        'deploy.vendor.io/application': 'shop',
        'deploy.vendor.io/environment': 'prod',
      },
    });
    expect(writes.calls).toEqual([
      {
        type: 'deploy',
        payload: {
          force: true,
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: metadata('web-canary'),
              spec: { selector: { app: 'web', [VERSION]: 'v2' }, ports },
            },
          ],
        },
      },
      {
        type: 'deploy',
        payload: {
          force: true,
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: metadata('web-stable'),
              spec: { selector: { app: 'web', [VERSION]: 'v1' }, ports },
            },
          ],
        },
      },
      {
        type: 'deploy',
        payload: {
          force: true,
          manifests: [
            {
              apiVersion: TRAFFIC_SPLIT_API,
              kind: 'TrafficSplit',
              metadata: metadata('web'),
              spec: {
                service: 'web',
                backends: [
                  { service: 'web-stable', weight: 75 },
                  { service: 'web-canary', weight: 25 },
                ],
              },
            },
          ],
        },
      },
    ]);
    expect(writes.said).toEqual(['TrafficSplit web: web-stable 75%, web-canary 25%']);
  });

  it('at the promotion, point the stable Service at the new version with all the weight', async () => {
    const writes = await trafficWrites(target([rootService({ app: 'web' })]), smi, {
      canaryWeight: 0,
      stable: 'new',
    });
    expect(JSON.stringify(writes.calls[1])).toContain(`"${VERSION}":"v2"`);
    expect(writes.said).toEqual(['TrafficSplit web: web-stable 100%, web-canary 0%']);
  });

  it('refuse a root whose selector matches no workload, or that does not exist', async () => {
    const position = { canaryWeight: 25, stable: 'previous' } as const;
    await expect(trafficWrites(target([rootService({ app: 'api' })]), smi, position)).rejects.toThrow(
      'Service shop/web selects app=api, which the pods of no Deployment among the manifests carry (web)',
    );
    await expect(trafficWrites(target([]), smi, position)).rejects.toThrow(
      'Service shop/web (trafficManagement smi rootServiceName) does not exist',
    );
  });
});

describe('istio writes', () => {
  const routes = [
    { name: 'primary', route: [{ destination: { host: 'web' } }] },
    { name: 'mirror', route: [{ destination: { host: 'web-shadow' } }] },
  ];
  const cluster = [rootService({ app: 'web' }), virtualService(routes), destinationRule];

  it('label the subsets by version and weight the named route, keeping the rest', async () => {
    const writes = await trafficWrites(target(cluster), istio('primary'), {
      canaryWeight: 10,
      stable: 'previous',
    });
    const specs = writes.calls.map((c) => {
      const [object] = c.type === 'deploy' ? c.payload.manifests : [];
      return isRecord(object) ? object.spec : undefined;
    });
    expect(specs).toEqual([
      {
        subsets: [
          { name: 'stable', labels: { track: 'main', [VERSION]: 'v1' } },
          { name: 'canary', labels: { [VERSION]: 'v2' } },
        ],
      },
      {
        http: [
          {
            name: 'primary',
            route: [
              { destination: { host: 'web', subset: 'stable' }, weight: 90 },
              { destination: { host: 'web', subset: 'canary' }, weight: 10 },
            ],
          },
          routes[1],
        ],
      },
    ]);
  });

  it('refuse a route that cannot be told, naming the routes there are', async () => {
    const position = { canaryWeight: 10, stable: 'previous' } as const;
    await expect(trafficWrites(target(cluster), istio(), position)).rejects.toThrow(
      'VirtualService shop/web-vs has 2 http routes (primary, mirror): name one with httpRouteName',
    );
    await expect(trafficWrites(target(cluster), istio('main'), position)).rejects.toThrow(
      'VirtualService shop/web-vs has no http route named main (its routes: primary, mirror)',
    );
    await expect(trafficWrites(target([destinationRule]), istio('primary'), position)).rejects.toThrow(
      'VirtualService shop/web-vs does not exist',
    );
  });
});
