// trafficManagement end to end: `cloudctl serve` and `orch-agent run` as processes on the shared real
// cluster, with the SMI TrafficSplit and Istio VirtualService/DestinationRule kinds installed as
// minimal CRDs (no mesh runs: the objects' weights and selectors are what a mesh would act on). A
// canary with an smi and an istio entry writes, at its setWeight, the split's weights, the canary
// Service selecting exactly the new pods, the route's weighted subsets and the subsets' version
// labels, leaving the user's own fields of the VirtualService and DestinationRule as they were; the
// previous version keeps its size until the promotion puts all traffic on the stable side serving
// the new version. A rejected canary keeps its weight; the rollback a person asks for then puts the
// canary's weight back to 0 on the version before. A blue/green strategy naming no Service takes its
// active Service from a kubernetes entry; naming another one there is refused at submission.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { type DeploymentRecord, replicasOf, untilDeployment } from './deployment-progress.ts';
import { potatoManifests } from './potato-app.ts';

const NS = 'traffic-e2e';
/** Where the blue/green target runs, beside the canary's. */
const NS_BG = 'traffic-e2e-bg';
const ACCOUNT = 'traffic-e2e';
const TOKENS = { agent: 'agent-token-traffic-7e21', ops: 'ops-token-traffic-40c9' };
const VERSION = 'deploy.vendor.io/version';

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;

/** A CRD that keeps whatever its objects hold: the structural minimum the API server accepts. */
function crd(group: string, version: string, kind: string, plural: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  };
}

const CRDS = [
  crd('split.smi-spec.io', 'v1alpha2', 'TrafficSplit', 'trafficsplits'),
  crd('networking.istio.io', 'v1', 'VirtualService', 'virtualservices'),
  crd('networking.istio.io', 'v1', 'DestinationRule', 'destinationrules'),
];

const conditionsSchema = z.object({
  status: z
    .object({ conditions: z.array(z.object({ type: z.string(), status: z.string() })).nullish() })
    .default({ conditions: [] }),
});

async function established(name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const read = await cluster.request(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    const { conditions } = conditionsSchema.parse(read.json).status;
    if ((conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not established: ${JSON.stringify(conditions)}`);
    await sleep(100);
  }
}

const ISTIO = `/apis/networking.istio.io/v1/namespaces/${NS}`;
const SPLIT = `/apis/split.smi-spec.io/v1alpha2/namespaces/${NS}/trafficsplits/potato`;

function deploymentFile(image: string): string {
  return `version: v1
kind: kubernetes
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: meshed-canary
trafficManagement:
  - targets: [staging]
    smi:
      - rootServiceName: potato
    istio:
      - virtualService: {name: potato-vs, httpRouteName: primary}
        destinationRule: {name: potato-dr, activeSubsetName: stable, canarySubsetName: canary}
strategies:
  meshed-canary:
    canary:
      steps:
        - setWeight: {weight: 50}
        - pause: {untilApproved: true}
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
}

/** The deployment's record as this file's user reads it, once `done` holds. */
const until = (id: string, what: string, done: (v: DeploymentRecord) => boolean, timeoutMs?: number) =>
  untilDeployment(ops, id, what, done, timeoutMs);

async function submit(image: string): Promise<string> {
  const answer = await ops.post('/deployments', { file: deploymentFile(image), fileName: 'potato.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return z.object({ id: z.string() }).parse(answer.body).id;
}

/** Waits for the approval after setWeight 50; answers the new version and the one before it. */
async function atThePause(id: string) {
  const paused = await until(
    id,
    'the pause',
    (v) => v.targets[0]?.steps.some((s) => s.kind === 'approval' && s.status === 'RUNNING') === true,
  );
  const workload = paused.targets[0]?.workloads?.[0];
  const previous = workload?.previous[0];
  if (workload === undefined || previous === undefined)
    throw new Error(`no workloads: ${JSON.stringify(paused)}`);
  // A version's ReplicaSet is `potato-<version>`; its pods carry that version as a label.
  const version = (replicaSet: string) => replicaSet.slice('potato-'.length);
  return {
    next: version(workload.replicaSet),
    live: version(previous.name),
    replicaSet: workload.replicaSet,
    old: previous.name,
    /** What the setWeight step said it did, as the deployment's page and log show it. */
    said: paused.targets[0]?.steps.find((s) => s.kind === 'setWeight')?.message,
  };
}

async function read(path: string): Promise<Record<string, unknown>> {
  const answer = await cluster.request('GET', path);
  expect(answer.status, answer.text).toBe(200);
  return z.record(z.string(), z.unknown()).parse(answer.json);
}

const splitSchema = z.object({
  metadata: z.object({ managedFields: z.array(z.object({ manager: z.string(), operation: z.string() })) }),
  spec: z.object({
    service: z.string(),
    backends: z.array(z.object({ service: z.string(), weight: z.int() })),
  }),
});

async function backends(): Promise<Record<string, number>> {
  const { spec } = splitSchema.parse(await read(SPLIT));
  expect(spec.service).toBe('potato');
  return Object.fromEntries(spec.backends.map((b) => [b.service, b.weight]));
}

const vsSchema = z.object({
  spec: z.object({
    hosts: z.array(z.string()),
    http: z.array(
      z.object({
        name: z.string(),
        route: z.array(
          z.object({
            destination: z.object({ host: z.string(), subset: z.string().optional() }),
            weight: z.int().optional(),
          }),
        ),
      }),
    ),
  }),
});

/** The primary route's weight per subset, and the other route as it is. */
async function routes() {
  const { spec } = vsSchema.parse(await read(`${ISTIO}/virtualservices/potato-vs`));
  const primary = spec.http.find((r) => r.name === 'primary');
  return {
    hosts: spec.hosts,
    primary: Object.fromEntries(
      (primary?.route ?? []).map((r) => [`${r.destination.host}/${r.destination.subset}`, r.weight]),
    ),
    other: spec.http.find((r) => r.name === 'other'),
  };
}

const drSchema = z.object({
  spec: z.object({
    host: z.string(),
    trafficPolicy: z.unknown(),
    subsets: z.array(z.object({ name: z.string(), labels: z.record(z.string(), z.string()) })),
  }),
});

async function subsets() {
  const { spec } = drSchema.parse(await read(`${ISTIO}/destinationrules/potato-dr`));
  return {
    trafficPolicy: spec.trafficPolicy,
    labels: Object.fromEntries(spec.subsets.map((s) => [s.name, s.labels])),
  };
}

async function selector(service: string): Promise<Record<string, string>> {
  const parsed = z
    .object({ spec: z.object({ selector: z.record(z.string(), z.string()) }) })
    .parse(await read(`/api/v1/namespaces/${NS}/services/${service}`));
  return parsed.spec.selector;
}

const replicas = (name: string): Promise<number> => replicasOf(cluster, NS, name);

const namesSchema = z.object({ items: z.array(z.object({ metadata: z.object({ name: z.string() }) })) });

async function podsOf(version: string): Promise<string[]> {
  const list = await read(
    `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(`${VERSION}=${version}`)}`,
  );
  return namesSchema
    .parse(list)
    .items.map((p) => p.metadata.name)
    .sort();
}

const slicesSchema = z.object({
  items: z.array(
    z.object({
      endpoints: z.array(z.object({ targetRef: z.object({ name: z.string() }).optional() })).nullish(),
    }),
  ),
});

/** The pods a Service sends to, as the endpoint controller put them in its EndpointSlices. */
async function endpointsOf(service: string): Promise<string[]> {
  const list = await read(
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${service}`)}`,
  );
  return slicesSchema
    .parse(list)
    .items.flatMap((s) => s.endpoints ?? [])
    .flatMap((e) => (e.targetRef === undefined ? [] : [e.targetRef.name]))
    .sort();
}

/** Polls until `check` passes (its last failure is thrown after the deadline). */
async function eventually(check: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-traffic-e2e-'));
  cluster = sharedClusterClient();
  for (const definition of CRDS) {
    const created = await cluster.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: definition,
    });
    expect([201, 409], created.text).toContain(created.status);
    await established(definition.metadata.name);
  }
  for (const name of [NS, NS_BG])
    await cluster.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
  // The user's own mesh objects, as they would apply them: cloudctl steers parts, the rest stays theirs.
  const user = async (path: string, body: Record<string, unknown>) => {
    const answer = await cluster.request('POST', path, { body });
    expect(answer.status, answer.text).toBe(201);
  };
  await user(`${ISTIO}/virtualservices`, {
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: { name: 'potato-vs', namespace: NS },
    spec: {
      hosts: ['potato.example'],
      http: [
        { name: 'primary', route: [{ destination: { host: 'potato' } }] },
        { name: 'other', route: [{ destination: { host: 'legacy' } }] },
      ],
    },
  });
  await user(`${ISTIO}/destinationrules`, {
    apiVersion: 'networking.istio.io/v1',
    kind: 'DestinationRule',
    metadata: { name: 'potato-dr', namespace: NS },
    spec: { host: 'potato', trafficPolicy: { tls: { mode: 'ISTIO_MUTUAL' } } },
  });
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'traffic-agent', token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS, NS_BG],
      kinds: ['replicaSet', 'service'],
      read: ['ops'],
      write: ['ops'],
    },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  for (const name of [NS, NS_BG]) await cluster?.request('DELETE', `/api/v1/namespaces/${name}`);
  for (const definition of CRDS)
    await cluster?.request(
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${definition.metadata.name}`,
    );
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a canary steered through trafficManagement', () => {
  it('writes the weights at setWeight, promotes onto the stable side, and leaves the user fields alone', async () => {
    const first = await submit('potato:1');
    expect((await until(first, 'the first version', (v) => v.status !== 'RUNNING')).status).toBe('SUCCEEDED');

    const id = await submit('potato:2');
    const { next, live, replicaSet, old, said } = await atThePause(id);
    expect(said).toBe(
      `${replicaSet} at 1 of 2, TrafficSplit potato: potato-stable 50%, potato-canary 50%, VirtualService potato-vs: stable 50%, canary 50%`,
    );

    // SMI: the split on the root, half to each side; each side's Service sends to its version's pods only.
    expect(await backends()).toEqual({ 'potato-stable': 50, 'potato-canary': 50 });
    expect(splitSchema.parse(await read(SPLIT)).metadata.managedFields).toContainEqual({
      manager: 'orch-agent',
      operation: 'Apply',
    });
    expect(await selector('potato-canary')).toEqual({ app: 'potato', [VERSION]: next });
    expect(await selector('potato-stable')).toEqual({ app: 'potato', [VERSION]: live });
    // The root stays as the user wrote it.
    expect(await selector('potato')).toEqual({ app: 'potato' });
    const newPods = await podsOf(next);
    expect(newPods).toHaveLength(1);
    await eventually(async () => expect(await endpointsOf('potato-canary')).toEqual(newPods));
    const oldPods = await podsOf(live);
    await eventually(async () => expect(await endpointsOf('potato-stable')).toEqual(oldPods));
    // The weight is the mesh's: the previous version keeps its full size.
    expect([await replicas(replicaSet), await replicas(old)]).toEqual([1, 2]);

    // Istio: the route's two subsets weighted, the subsets labelled by version, the rest untouched.
    expect(await routes()).toEqual({
      hosts: ['potato.example'],
      primary: { 'potato/stable': 50, 'potato/canary': 50 },
      other: { name: 'other', route: [{ destination: { host: 'legacy' } }] },
    });
    expect(await subsets()).toEqual({
      trafficPolicy: { tls: { mode: 'ISTIO_MUTUAL' } },
      labels: { stable: { [VERSION]: live }, canary: { [VERSION]: next } },
    });

    expect((await ops.post(`/deployments/${id}/approve`, {})).status).toBe(200);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done.targets[0])).toBe('SUCCEEDED');
    expect(await backends()).toEqual({ 'potato-stable': 100, 'potato-canary': 0 });
    expect(await selector('potato-stable')).toEqual({ app: 'potato', [VERSION]: next });
    expect((await routes()).primary).toEqual({ 'potato/stable': 100, 'potato/canary': 0 });
    expect((await subsets()).labels).toEqual({ stable: { [VERSION]: next }, canary: { [VERSION]: next } });
    expect([await replicas(replicaSet), await replicas(old)]).toEqual([2, 0]);
    const promoted = await podsOf(next);
    await eventually(async () => expect(await endpointsOf('potato-stable')).toEqual(promoted));
  });

  it('puts the canary weight back to 0 on the version before when a rollback is asked', async () => {
    const id = await submit('potato:3');
    const { next, live, replicaSet, old } = await atThePause(id);
    expect(await backends()).toEqual({ 'potato-stable': 50, 'potato-canary': 50 });
    expect(await selector('potato-canary')).toEqual({ app: 'potato', [VERSION]: next });

    // Rejected, the target fails where it is (the canary keeps its weight) until a person rolls it back.
    expect((await ops.post(`/deployments/${id}/reject`, {})).status).toBe(200);
    expect((await until(id, 'the rejection', (v) => v.status !== 'RUNNING')).status).toBe('FAILED');
    expect(await backends()).toEqual({ 'potato-stable': 50, 'potato-canary': 50 });
    expect((await ops.post(`/deployments/${id}/rollback`)).status).toBe(202);
    const rolledBack = await until(id, 'the rollback', (v) => v.status !== 'RUNNING');
    expect(rolledBack.status, JSON.stringify(rolledBack.targets[0])).toBe('ROLLED_BACK');
    expect(await backends()).toEqual({ 'potato-stable': 100, 'potato-canary': 0 });
    expect(await selector('potato-stable')).toEqual({ app: 'potato', [VERSION]: live });
    expect((await routes()).primary).toEqual({ 'potato/stable': 100, 'potato/canary': 0 });
    expect((await subsets()).labels.stable).toEqual({ [VERSION]: live });
    expect([await replicas(replicaSet), await replicas(old)]).toEqual([0, 2]);
  });
});

function blueGreenFile(image: string, strategyService: string | undefined): string {
  return `application: potato
targets:
  bg:
    account: ${ACCOUNT}
    namespace: ${NS_BG}
    strategy: switch
trafficManagement:
  - targets: [bg]
    kubernetes:
      - activeService: potato
strategies:
  switch:
    blueGreen:
${strategyService === undefined ? '      redirectTrafficAfter: []' : `      activeService: ${strategyService}`}
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
}

describe('a blue/green target whose Services come from trafficManagement', () => {
  it("switches the kubernetes entry's activeService to the new version", async () => {
    const post = (image: string) =>
      ops.post('/deployments', { file: blueGreenFile(image, undefined), fileName: 'potato-bg.yaml' });
    const views: DeploymentRecord[] = [];
    for (const image of ['potato:1', 'potato:2']) {
      const answer = await post(image);
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      const id = z.object({ id: z.string() }).parse(answer.body).id;
      const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
      expect(done.status, JSON.stringify(done.targets[0])).toBe('SUCCEEDED');
      views.push(done);
    }
    const second = views[1];
    const workload = second?.targets[0]?.workloads?.[0];
    expect(second?.targets[0]?.steps.find((s) => s.kind === 'switchTraffic')?.message).toBe(
      `potato selects ${workload?.replicaSet}`,
    );
    const service = await read(`/api/v1/namespaces/${NS_BG}/services/potato`);
    expect(
      z.object({ spec: z.object({ selector: z.record(z.string(), z.string()) }) }).parse(service).spec
        .selector,
    ).toEqual({
      app: 'potato',
      [VERSION]: workload?.replicaSet.slice('potato-'.length),
    });
  });

  it('refuses a file whose strategy names another activeService than its kubernetes entry, naming both', async () => {
    const answer = await ops.post('/deployments', {
      file: blueGreenFile('potato:3', 'potato-live'),
      fileName: 'potato-bg.yaml',
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(
      "trafficManagement[0].kubernetes[0].activeService: target 'bg': activeService 'potato' here, but its strategy names 'potato-live' (strategies.switch.blueGreen.activeService): name it in one place",
    );
  });
});
