// The applications view against a real deploy: an in-process cloudctl, a real agent, the shared real
// cluster, and Debian's headless Chromium. Two versions of `potato` are deployed through POST /ops
// (v000 with two pods, v001 with one), and a Service selects v001 only. The server-rendered pages are
// read as HTML with a bearer header; the browser signs in as an operator (WRITE) and as a developer
// (READ): the list, the versions newest first with traffic and pods, a scale made through the API that
// shows without a reload, a scale run from the page with its progress, and the actions neither
// offered to the developer nor taken from them by the page's API copy.
// STATUS_PAGE_SCREENSHOTS=docs/images refreshes the screenshots docs/status-page.md shows.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { msUntilSynced, type RunningAgent, startAgent } from '../../agent/watch/watch-fixture.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { SseStream } from '../../support/sse-client.ts';
import { taskDone } from '../../support/task-wait.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { screenshot, signIn, startBrowser, type TestBrowser } from './browser.ts';

const NS = 'apps-page';
const ACCOUNT = 'apps-page';
const APP = 'potato';

let cp: TestControlPlane;
let agent: RunningAgent;
let cluster: ClusterClient;
let browser: TestBrowser;
let ops: ApiClient;

const eventually = (check: () => Promise<void>, timeout = 30_000) =>
  vi.waitFor(check, { timeout, interval: 200 });

function version(track: string, image: string, replicas: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web', track } },
      template: {
        metadata: { labels: { app: 'web', track } },
        spec: { containers: [{ name: 'web', image }] },
      },
    },
  };
}

async function deploy(manifests: unknown[]): Promise<void> {
  const started = await ops.post('/ops', [
    { deployManifest: { account: ACCOUNT, moniker: { app: APP }, manifests } },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect((await taskDone(ops, started.body.id, 60_000)).status.failed).toBe(false);
}

/** The page's HTML as the user's bearer token gets it. */
async function pageHtml(path: string, token: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${cp.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, text: await answer.text() };
}

interface VersionRow {
  key: string;
  label: string;
  ready: number;
  desired: number;
  health: string;
  traffic: boolean;
  actions: string[];
}

function versionRows(page: Page): Promise<VersionRow[]> {
  return page.$$eval('tr[data-role="version"]', (rows) =>
    rows.map((row) => {
      const replicas = row.querySelector('[data-cell="replicas"]');
      return {
        key: row.getAttribute('data-key') ?? '',
        label: row.querySelector('[data-select]')?.textContent ?? '',
        ready: Number(replicas?.getAttribute('data-ready')),
        desired: Number(replicas?.getAttribute('data-desired')),
        health: row.querySelector('[data-cell="status"]')?.getAttribute('data-health') ?? '',
        traffic: row.querySelector('[data-cell="traffic"]')?.getAttribute('data-traffic') === 'true',
        actions: [...row.querySelectorAll('button.action')].map(
          (b) => b.getAttribute('data-operation') ?? '',
        ),
      };
    }),
  );
}

/** Until the page's feed is open: its first event (`position`) came. */
function live(page: Page): Promise<void> {
  return page.locator('#live-state[data-feed="open"]').waitFor();
}

function podOwners(page: Page): Promise<string[]> {
  return page.$$eval('tr[data-role="pod"]', (rows) => rows.map((r) => r.getAttribute('data-owner') ?? ''));
}

const V0 = `${ACCOUNT}/${NS}/replicaSet web-v000`;
const V1 = `${ACCOUNT}/${NS}/replicaSet web-v001`;

beforeAll(async () => {
  cp = await startTestControlPlane();
  ops = apiClient(cp.url, USERS.ops.token);
  cluster = sharedClusterClient();
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [
        {
          name: ACCOUNT,
          orchConfigFile: sharedCluster().kubeconfigPath,
          namespaces: [NS],
          kinds: ['replicaSet', 'pod', 'service'],
          permissions: { READ: ['dev', 'ops'], WRITE: ['ops'] },
        },
      ],
    },
  });
  await msUntilSynced(cp, agent);
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'front', namespace: NS },
    spec: { selector: { app: 'web', track: 'two' }, ports: [{ port: 80, targetPort: 8080 }] },
  };
  await deploy([service, version('one', 'registry.example/potato:1', 2)]);
  await deploy([version('two', 'registry.example/potato:2', 1)]);
  // The page is read once the read model knows both versions and their three pods.
  await eventually(async () => {
    const groups = await ops.get(`/applications/${APP}/serverGroups?expand=true`);
    expect(groups.status).toBe(200);
    const counts = groups.body.map((g: { name: string; instances: unknown[] }) => [
      g.name,
      g.instances.length,
    ]);
    expect(counts).toEqual([
      ['replicaSet web-v000', 2],
      ['replicaSet web-v001', 1],
    ]);
  }, 60_000);
  browser = await startBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await cp?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
});

describe('the applications view, server-rendered', () => {
  it('lists the application with its account, cluster and health; an unknown one is a 404 page', async () => {
    const list = await pageHtml('/status/applications', USERS.dev.token);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/status/applications/${APP}" data-application="${APP}"`);
    expect(list.text).toContain(`<td>${ACCOUNT}</td><td>replicaSet web</td>`);
    expect(list.text).toMatch(/data-pods-total="3"/);
    const missing = await pageHtml('/status/applications/no-such-app', USERS.dev.token);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('no application named no-such-app');
  });

  it('shows no application to a user who may read none of its accounts', async () => {
    const list = await pageHtml('/status/applications', USERS.nobody.token);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(`data-application="${APP}"`);
    expect((await pageHtml(`/status/applications/${APP}`, USERS.nobody.token)).status).toBe(404);
  });

  it('starts the page’s feed where the store stood before the render: a change made before the script connects is sent', async () => {
    const page = await pageHtml(`/status/applications/${APP}`, USERS.dev.token);
    const feed = /data-watch="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
    expect(feed).toMatch(/^\/status\/api\/watch\?application=potato&since=\d+$/);
    // The change lands after the render and before anything follows the feed.
    await cluster.request('PATCH', `/api/v1/namespaces/${NS}/services/front`, {
      body: { metadata: { labels: { touched: 'between' } } },
      contentType: 'application/merge-patch+json',
    });
    const cookie = `cloudctl-status-token=${encodeURIComponent(USERS.dev.token)}`;
    const stream = await SseStream.open(`${cp.url}${feed}`, { cookie });
    try {
      expect(stream.status).toBe(200);
      const changed = await stream.waitFor(
        (e) => e.event === 'object' && e.data.name === 'front' && e.data.labels?.touched === 'between',
      );
      expect(changed.data.moniker.app).toBe(APP);
    } finally {
      stream.close();
    }
  });

  it('offers actions to a user with WRITE and none to a user with READ only', async () => {
    const withWrite = await pageHtml(`/status/applications/${APP}`, USERS.ops.token);
    const readOnly = await pageHtml(`/status/applications/${APP}`, USERS.dev.token);
    expect(withWrite.text).toContain('data-operation="scaleManifest"');
    expect(withWrite.text).toContain('data-operation="disableManifest"');
    expect(readOnly.status).toBe(200);
    expect(readOnly.text).toContain(`data-key="${V1}"`);
    expect(readOnly.text).not.toContain('data-operation=');
  });
});

describe('the applications view in a real browser', () => {
  it('greets a first visit at the root with the sign-in form, not an error', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${cp.url}/`);
    expect(page.url()).toBe(`${cp.url}/status/applications`);
    expect(await page.title()).toBe('Sign in · cloudctl');
    expect(await page.locator('input[name=token]').count()).toBe(1);
    expect(await page.locator('[role=alert]').count()).toBe(0);
    await page.close();
  });

  it('shows the versions newest first, which takes traffic, and the pods of each', async () => {
    const page = await browser.context.newPage();
    await signIn(page, cp.url, USERS.ops.token, '/status/applications');
    expect(await page.locator('nav a').first().textContent()).toBe('Applications');
    await live(page);
    await screenshot(page, 'applications');
    await Promise.all([
      page.waitForURL(`${cp.url}/status/applications/${APP}`),
      page.click(`a[data-application="${APP}"]`),
    ]);
    const rows = await versionRows(page);
    expect(rows.map((r) => [r.key, r.desired, r.traffic])).toEqual([
      [V1, 1, true],
      [V0, 2, false],
    ]);
    expect(rows[0]?.label).toBe('v001 web-v001');
    expect((await podOwners(page)).sort()).toEqual([V0, V0, V1]);
    await live(page);
    await screenshot(page, 'application');
    await page.close();
  });

  it('shows a scale made through the API without a reload', async () => {
    const page = await browser.context.newPage();
    await signIn(page, cp.url, USERS.dev.token, `/status/applications/${APP}`);
    await live(page);
    // A full reload would lose this mark.
    await page.evaluate(() => {
      (globalThis as unknown as { mark: number }).mark = 1;
    });
    const started = await ops.post('/ops', [
      {
        scaleManifest: { account: ACCOUNT, manifestName: 'replicaSet web-v000', location: NS, replicas: 3 },
      },
    ]);
    expect(started.status).toBe(200);
    await eventually(async () => {
      const v0 = (await versionRows(page)).find((r) => r.key === V0);
      expect(v0?.desired).toBe(3);
      expect((await podOwners(page)).filter((o) => o === V0)).toHaveLength(3);
    });
    expect(await page.evaluate(() => (globalThis as unknown as { mark?: number }).mark)).toBe(1);
    await page.close();
  });

  it('runs a scale from the page after confirmation and shows its task to the end', async () => {
    const page = await browser.context.newPage();
    const feeds: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/status/api/watch')) feeds.push(request.url());
    });
    await signIn(page, cp.url, USERS.ops.token, `/status/applications/${APP}`);
    await live(page);
    await page.click(`tr[data-key="${V1}"] button[data-operation="scaleManifest"]`);
    await expect.poll(() => page.locator('dialog#confirm').getAttribute('open')).toBe('');
    expect(await page.locator('dialog#confirm .says').textContent()).toContain('Scale replicaSet web-v001');
    await page.fill('dialog#confirm input[name=replicas]', '2');
    await screenshot(page, 'application-confirm');
    await page.click('dialog#confirm button.confirm');
    const line = page.locator('#task-progress .task-line');
    await eventually(async () => expect(await line.getAttribute('data-outcome')).toBe('succeeded'));
    // The new pod comes in on the feed as well.
    await eventually(async () => expect((await podOwners(page)).filter((o) => o === V1)).toHaveLength(2));
    await screenshot(page, 'application-action');
    // The task is followed on the page's one feed, not on a connection of its own.
    expect(feeds).toHaveLength(1);
    const rs = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets/web-v001`);
    expect((rs.json as { spec: { replicas: number } }).spec.replicas).toBe(2);
    await page.close();
  });

  it('offers a READ-only user no action, and the page API refuses one posted anyway', async () => {
    const page = await browser.context.newPage();
    await signIn(page, cp.url, USERS.dev.token, `/status/applications/${APP}`);
    expect(await page.locator('button.action').count()).toBe(0);
    const refused = await page.evaluate(
      async (body) => {
        const answer = await fetch('/status/api/ops', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return answer.status;
      },
      [
        {
          scaleManifest: { account: ACCOUNT, manifestName: 'replicaSet web-v001', location: NS, replicas: 5 },
        },
      ],
    );
    expect(refused).toBe(403);
    await page.close();
  });

  it('refuses the page API a POST from another site, even with a WRITE user’s cookie', async () => {
    const cookie = `cloudctl-status-token=${encodeURIComponent(USERS.ops.token)}`;
    const body = JSON.stringify([
      { scaleManifest: { account: ACCOUNT, manifestName: 'replicaSet web-v001', location: NS, replicas: 5 } },
    ]);
    const cross = await fetch(`${cp.url}/status/api/ops`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body,
    });
    expect(cross.status).toBe(403);
    const form = await fetch(`${cp.url}/status/api/ops`, {
      method: 'POST',
      headers: { cookie, origin: cp.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'x=1',
    });
    expect(form.status).toBe(415);
    const rs = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets/web-v001`);
    expect((rs.json as { spec: { replicas: number } }).spec.replicas).not.toBe(5);
  });

  it('shows a selected pod’s manifest and events', async () => {
    const page = await browser.context.newPage();
    await signIn(page, cp.url, USERS.dev.token, `/status/applications/${APP}`);
    await page.click(`tr[data-role="pod"][data-owner="${V1}"] button[data-select]`);
    await page.locator('aside#details h3', { hasText: 'Manifest (JSON)' }).waitFor();
    expect(await page.locator('aside#details pre').last().textContent()).toContain('"kind": "Pod"');
    expect(await page.locator('aside#details button[data-logs]').count()).toBe(1);
    await live(page);
    await screenshot(page, 'application-details');
    await page.close();
  });
});
