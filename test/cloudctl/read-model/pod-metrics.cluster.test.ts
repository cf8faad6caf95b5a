// Pod metrics end to end against a real metrics.k8s.io: a cluster of its own started with `metrics: true`
// (metrics-server built from its Go module, scraping the usage kwok simulates from the pod's
// kwok.x-k8s.io/usage-* annotations), an agent with `metrics: true` sending the PodMetrics up every
// 20 s, and cloudctl showing them where clouddriver and Deck read them: GET /manifests' `metrics`
// for a pod, the instance, and the status page's pod row. A pod gone takes its metrics with it (the
// agent's next snapshot of the namespace). Bounded by metrics-server's second scrape (10 s apart,
// once the pod runs) plus the agent's 20 s round.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningAgent, startAgent } from '../../agent/watch/watch-fixture.ts';
import { type Cluster, startCluster } from '../../cluster/index.ts';
import { taskDone } from '../../support/task-wait.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

const ACCOUNT = 'metered';
const NS = 'default';
const APP = 'meter';
/** What kwok simulates for the pod's one container. */
const USAGE = { cpu: '250m', memory: '64Mi' };

let cluster: Cluster;
let cp: TestControlPlane;
let agent: RunningAgent;
let admin: ApiClient;
let pod: string;

const eventually = <T>(check: () => Promise<T>, timeout: number) =>
  vi.waitFor(check, { timeout, interval: 500 });

const podPath = (query = '') => `/manifests/${ACCOUNT}/${NS}/${encodeURIComponent(`pod ${pod}`)}${query}`;

/** The millicores of a "CPU(cores)" figure: CPU is a rate between two scrapes, so near 250, not exact. */
const millicores = (figure: unknown) => Number(String(figure).replace(/m$/, ''));

beforeAll(async () => {
  cluster = await startCluster({ nodes: 1, metrics: true });
  cp = await startTestControlPlane();
  admin = apiClient(cp.url, USERS.admin.token);
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [
        {
          name: ACCOUNT,
          orchConfigFile: cluster.kubeconfigPath,
          namespaces: [NS],
          kinds: ['deployment', 'replicaSet', 'pod'],
          metrics: true,
        },
      ],
    },
  });
  const started = await admin.post('/ops', [
    {
      deployManifest: {
        account: ACCOUNT,
        moniker: { app: APP },
        manifests: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'web', namespace: NS },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'web' } },
              template: {
                metadata: {
                  labels: { app: 'web' },
                  annotations: {
                    'kwok.x-k8s.io/usage-cpu': USAGE.cpu,
                    'kwok.x-k8s.io/usage-memory': USAGE.memory,
                  },
                },
                spec: { containers: [{ name: 'web', image: 'registry.example/web:1' }] },
              },
            },
          },
        ],
      },
    },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect((await taskDone(admin, started.body.id, 60_000)).status.failed).toBe(false);
  pod = await eventually(async () => {
    const groups = await admin.get(`/applications/${APP}/serverGroups?expand=true`);
    const name: unknown = groups.body?.[0]?.instances?.[0]?.displayName;
    if (typeof name !== 'string') throw new Error(`no pod yet: ${JSON.stringify(groups.body)}`);
    return name;
  }, 60_000);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await cluster?.stop();
});

describe('pod metrics from metrics-server, through an agent with metrics: true', () => {
  it("shows the pod's containers' CPU and memory in GET /manifests as clouddriver does", async () => {
    const answer = await eventually(async () => {
      const read = await admin.get(podPath());
      expect(read.status).toBe(200);
      expect(read.body.metrics).not.toEqual([]);
      return read;
    }, 150_000);
    expect(answer.body.metrics).toEqual([
      {
        containerName: 'web',
        metrics: { 'CPU(cores)': expect.stringMatching(/^\d+m$/), 'MEMORY(bytes)': USAGE.memory },
      },
    ]);
    expect(millicores(answer.body.metrics[0].metrics['CPU(cores)'])).toBeGreaterThanOrEqual(225);
    expect(millicores(answer.body.metrics[0].metrics['CPU(cores)'])).toBeLessThanOrEqual(275);
  }, 160_000);

  it('leaves them out where clouddriver does: without events, and for kinds other than pods', async () => {
    const quiet = await admin.get(podPath('?includeEvents=false'));
    expect(quiet.status).toBe(200);
    expect(quiet.body.metrics).toEqual([]);
    const deployment = await admin.get(`/manifests/${ACCOUNT}/${NS}/${encodeURIComponent('deployment web')}`);
    expect(deployment.status).toBe(200);
    expect(deployment.body.metrics).toEqual([]);
  });

  it('gives the instance the same metrics', async () => {
    const instance = await admin.get(`/instances/${ACCOUNT}/${NS}/${encodeURIComponent(`pod ${pod}`)}`);
    expect(instance.status).toBe(200);
    expect(instance.body).toMatchObject({ name: `pod ${pod}`, healthState: 'Up' });
    expect(instance.body.metrics).toEqual([
      {
        containerName: 'web',
        metrics: { 'CPU(cores)': expect.stringMatching(/^\d+m$/), 'MEMORY(bytes)': USAGE.memory },
      },
    ]);
  });

  it("shows the pod's CPU and memory on the status page", async () => {
    const page = await fetch(`${cp.url}/status/applications/${APP}`, {
      headers: { authorization: `Bearer ${USERS.admin.token}` },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    const row = html.split('<tr').find((r) => r.includes(`data-role="pod"`) && r.includes(pod)) ?? '';
    expect(row).toContain(`<span data-cell="memory">${USAGE.memory}</span>`);
    const cpu = /<span data-cell="cpu">(\d+)m<\/span>/.exec(row);
    expect(cpu, row).not.toBeNull();
    expect(Number(cpu?.[1])).toBeGreaterThanOrEqual(225);
  });

  it("forgets a deleted pod's metrics with the agent's next snapshot of the namespace", async () => {
    const gone = pod;
    const scaled = await cluster.client.request(
      'PATCH',
      `/apis/apps/v1/namespaces/${NS}/deployments/web/scale`,
      { body: { spec: { replicas: 0 } }, contentType: 'application/merge-patch+json' },
    );
    expect(scaled.status, scaled.text).toBe(200);
    await eventually(async () => {
      const stored = await cp.plane.store.cache.object(
        ACCOUNT,
        { group: 'metrics.k8s.io', kind: 'PodMetrics' },
        [NS],
        gone,
      );
      expect(stored).toBeUndefined();
    }, 90_000);
  }, 100_000);
});
