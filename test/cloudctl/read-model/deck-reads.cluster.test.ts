// The reads Deck makes that clouddriver's integration cases do not, against `cloudctl serve` and
// `orch-agent run` on the shared cluster: GET /serverGroups as its API document describes it, the
// securityGroups variants (by account without a region, by name across regions, a kind spelt any
// way), and GET /search with a Kubernetes kind as the type, which Deck's resource pickers send with
// the namespace as `q` and then keep the results of the account, namespace and kind they asked for.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const EAST = 'deck-east';
const WEST = 'deck-west';
const ACCOUNT = 'deck-reads';
const TOKENS = { agent: 'agent-token-deck-reads-71c2', dev: 'dev-token-deck-reads-2b9e' };
const SHOP = { 'moniker.spinnaker.io/application': 'shop' };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let dev: ApiClient;

async function create(path: string, body: Record<string, unknown>): Promise<void> {
  const created = await cluster.request('POST', path, { body });
  if (created.status !== 201) throw new Error(`create ${path}: ${created.status} ${created.text}`);
}

const deployment = (name: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, annotations },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name, image: `registry.example/${name}:1` }] },
    },
  },
});

const networkPolicy = (name: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
});

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });

interface SearchResultSet {
  totalMatches: number;
  results: Array<Record<string, string>>;
}

async function search(query: string): Promise<SearchResultSet> {
  const answer = await dev.get(`/search?${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body).toHaveLength(1);
  return answer.body[0] as SearchResultSet;
}

/** What Deck's ManifestKindSearchService keeps: results of the account, namespace and kind it asked for. */
async function deckPicker(kind: string, namespace: string): Promise<string[]> {
  const set = await search(`type=${encodeURIComponent(kind)}&q=${namespace}`);
  return set.results
    .filter((r) => r.account === ACCOUNT && r.namespace === namespace && r.kubernetesKind === kind)
    .map((r) => r.name ?? '')
    .sort();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-deck-reads-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'deck-reads-agent', token: TOKENS.agent },
    users: [{ name: 'dave', token: TOKENS.dev, roles: ['dev'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [EAST, WEST],
      kinds: ['deployment', 'replicaSet', 'pod', 'service', 'networkPolicy', 'configMap'],
      read: ['dev'],
      write: ['dev'],
    },
  });
  for (const ns of [EAST, WEST]) {
    await cluster.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    await create(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, networkPolicy('guard'));
    await create(`/api/v1/namespaces/${ns}/configmaps`, configMap(`settings-${ns}`));
  }
  await create(`/apis/networking.k8s.io/v1/namespaces/${EAST}/networkpolicies`, networkPolicy('east-only'));
  await create(`/apis/apps/v1/namespaces/${EAST}/deployments`, deployment('web', SHOP));
  await create(`/apis/apps/v1/namespaces/${WEST}/deployments`, deployment('api'));
  await create(`/api/v1/namespaces/${EAST}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', annotations: SHOP },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
  });
  await system.startAgent();
  dev = apiClient(system.url, TOKENS.dev);
  // Everything above is cached: the last ConfigMap and the ReplicaSet the Deployment made.
  await vi.waitFor(
    async () => {
      const configMaps = (await search(`type=configMap&q=${WEST}`)).results.map((r) => r.name);
      expect(configMaps).toContain(`configMap settings-${WEST}`);
      expect((await search('type=serverGroups&q=web')).totalMatches).toBe(1);
      expect((await search('type=securityGroups&q=guard')).totalMatches).toBe(2);
    },
    { timeout: 60_000, interval: 250 },
  );
}, 180_000);

afterAll(async () => {
  await system?.stop();
  for (const ns of [EAST, WEST]) await cluster?.request('DELETE', `/api/v1/namespaces/${ns}`);
  await cluster?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('GET /serverGroups', () => {
  it('documents applications and ids as optional, and answers either one, but not both nor neither', async () => {
    const document = (await dev.get('/v2/api-docs')).body;
    const parameters = document.paths['/serverGroups'].get.parameters as Array<Record<string, unknown>>;
    const required = Object.fromEntries(parameters.map((p) => [p.name, p.required]));
    expect(required).toMatchObject({ applications: false, ids: false });

    const byApplication = await dev.get('/serverGroups?applications=shop');
    expect(byApplication.status).toBe(200);
    expect(byApplication.body.map((sg: { name: string }) => sg.name)).toEqual([
      expect.stringMatching(/^replicaSet web-/),
    ]);
    const id = `${ACCOUNT}:${EAST}:${byApplication.body[0].name}`;
    const byId = await dev.get(`/serverGroups?ids=${encodeURIComponent(id)}`);
    expect(byId.status).toBe(200);
    expect(byId.body.map((sg: { name: string }) => sg.name)).toEqual([byApplication.body[0].name]);

    for (const query of ['', `?applications=shop&ids=${encodeURIComponent(id)}`]) {
      const refused = await dev.get(`/serverGroups${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.message).toMatch(/applications.*ids.*either 'applications' or 'ids'/);
    }
  });
});

describe('GET /securityGroups variants', () => {
  const summary = (name: string) => ({ id: `networkPolicy ${name}`, name: `networkPolicy ${name}` });

  it("lists an account's groups without a region by region, and with one as the region's list", async () => {
    const all = await dev.get(`/securityGroups/${ACCOUNT}`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      orchestrator: {
        [EAST]: [expect.objectContaining(summary('east-only')), expect.objectContaining(summary('guard'))],
        [WEST]: [expect.objectContaining(summary('guard'))],
      },
    });
    const west = await dev.get(`/securityGroups/${ACCOUNT}?region=${WEST}`);
    expect(west.body).toEqual({ orchestrator: [expect.objectContaining(summary('guard'))] });
  });

  it('finds groups of one name in every region, and one group in a region, whatever the kind is spelt', async () => {
    const spellings = [
      'networkPolicy guard',
      'NetworkPolicy guard',
      'networkpolicy.networking.k8s.io guard',
      'guard',
    ];
    for (const name of spellings) {
      const byName = await dev.get(`/securityGroups/${ACCOUNT}/orchestrator/${encodeURIComponent(name)}`);
      expect(byName.status, name).toBe(200);
      expect(byName.body, name).toEqual({
        [EAST]: [expect.objectContaining(summary('guard'))],
        [WEST]: [expect.objectContaining(summary('guard'))],
      });
      const one = await dev.get(
        `/securityGroups/${ACCOUNT}/orchestrator/${WEST}/${encodeURIComponent(name)}`,
      );
      expect(one.status, name).toBe(200);
      expect(one.body, name).toMatchObject({
        id: 'networkPolicy guard',
        namespace: WEST,
        accountName: ACCOUNT,
      });
    }
    expect((await dev.get(`/securityGroups/${ACCOUNT}/orchestrator/${WEST}/east-only`)).status).toBe(404);
    expect((await dev.get(`/securityGroups/${ACCOUNT}/orchestrator/missing`)).body).toEqual({});
  });
});

describe('GET /search with a Kubernetes kind as the type', () => {
  it("fills Deck's resource picker: the kind's objects in the namespace, of every role and none", async () => {
    expect(await deckPicker('deployment', EAST)).toEqual(['deployment web']);
    expect(await deckPicker('deployment', WEST)).toEqual(['deployment api']);
    // Kubernetes puts its root certificate's ConfigMap into every namespace.
    expect(await deckPicker('configMap', WEST)).toEqual([
      'configMap kube-root-ca.crt',
      `configMap settings-${WEST}`,
    ]);
    expect(await deckPicker('networkPolicy', EAST)).toEqual([
      'networkPolicy east-only',
      'networkPolicy guard',
    ]);
    expect(await deckPicker('service', WEST)).toEqual([]);
  });

  it("answers clouddriver's result shape, with the kind as the client spelt it", async () => {
    const services = await search(`type=service&q=${EAST}`);
    expect(services.totalMatches).toBe(1);
    expect(services.results).toEqual([
      {
        type: 'loadBalancers',
        provider: 'orchestrator',
        group: 'service',
        kubernetesKind: 'service',
        account: ACCOUNT,
        namespace: EAST,
        region: EAST,
        name: 'service web',
        loadBalancer: 'service web',
        application: 'shop',
        cluster: 'service web',
      },
    ]);
    const spelt = await search(`type=Deployment&q=${EAST}`);
    expect(spelt.results.map((r) => [r.kubernetesKind, r.name, r.type])).toEqual([
      ['Deployment', 'Deployment web', 'serverGroupManagers'],
    ]);
    // q matches the application too, as clouddriver relates an application's objects to its name.
    expect((await search('type=deployment&q=sho')).results.map((r) => r.name)).toEqual(['deployment web']);
  });

  it('pages across kinds and finds nothing for a kind the account does not watch', async () => {
    const both = await search('type=deployment&type=service&q=deck-');
    expect(both.totalMatches).toBe(3);
    const names = both.results.map((r) => r.name);
    expect(names).toEqual(['deployment web', 'deployment api', 'service web']);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const one = await search(`type=deployment&type=service&q=deck-&pageSize=1&page=${page}`);
      expect(one.totalMatches).toBe(3);
      pages.push(...one.results.map((r) => r.name));
    }
    expect(pages).toEqual(names);
    expect((await search('type=deployment&type=service&q=deck-&pageSize=1&page=4')).results).toEqual([]);
    expect(await search('type=statefulSet&q=deck')).toMatchObject({ totalMatches: 0, results: [] });
    expect(await search('type=noSuchKind')).toMatchObject({ totalMatches: 0, results: [] });
  });
});
