// The status page in a real browser: Debian's headless Chromium (playwright-core) against an
// in-process cloudctl, a real agent and the shared real cluster. Each page is read back from the DOM
// and compared with what the JSON API answers the same user; signing in, the refusal page, an
// account going FAILED while the page is open (no reload), and a fresh install's empty pages.
// Set STATUS_PAGE_SCREENSHOTS=docs/images to refresh the screenshots the docs show.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../../package.json' with { type: 'json' };
import { msUntilSynced, type RunningAgent, startAgent } from '../../agent/watch/watch-fixture.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { screenshot, signIn, startBrowser, type TestBrowser } from './browser.ts';

const NS = 'status-page';

let cp: TestControlPlane;
let agent: RunningAgent;
let cluster: ClusterClient;
let browser: TestBrowser;
let root: ApiClient;
let dev: ApiClient;
/** Every URL the browser asked for: the page must need nothing from another host. */
const requested: string[] = [];

const account = (name: string, read: string[], write: string[]) => ({
  name,
  orchConfigFile: sharedCluster().kubeconfigPath,
  namespaces: [NS],
  kinds: ['configMap'],
  permissions: { READ: read, WRITE: write },
});

async function signOut(page: Page): Promise<void> {
  await Promise.all([
    page.waitForURL(`${cp.url}/status/login`),
    page.click('form[action="/status/logout"] button'),
  ]);
}

interface AccountRow {
  name: string;
  state: string | null;
  message: string;
  kinds: Record<string, number>;
}

function accountRows(page: Page): Promise<AccountRow[]> {
  return page.$$eval('section[data-section="accounts"] tbody tr', (rows) =>
    rows.map((row) => ({
      name: row.querySelector('[data-account]')?.getAttribute('data-account') ?? '',
      state: row.querySelector('[data-state]')?.getAttribute('data-state') ?? null,
      message: row.querySelector('[data-message]')?.textContent ?? '',
      kinds: Object.fromEntries(
        [...row.querySelectorAll('[data-kind]')].map((li) => [
          li.getAttribute('data-kind'),
          Number(li.getAttribute('data-count')),
        ]),
      ),
    })),
  );
}

beforeAll(async () => {
  cp = await startTestControlPlane();
  root = apiClient(cp.url, USERS.admin.token);
  dev = apiClient(cp.url, USERS.dev.token);
  cluster = sharedClusterClient();
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  for (const name of ['alpha', 'beta'])
    await cluster.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: name } },
    });
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [account('status-shared', ['dev'], ['ops']), account('status-secret', ['ops'], ['ops'])],
    },
    dynamicAccounts: { enabled: true },
  });
  await msUntilSynced(cp, agent);
  // A cloudctl account, registered (INACTIVE) for the FAILED test.
  const defined = await root.post('/credentials', {
    name: 'status-broken',
    type: 'orchestrator',
    orchConfigFile: sharedCluster().kubeconfigPath,
    namespaces: [NS],
    kinds: ['configMap'],
  });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  expect((await root.post('/vendor/accounts', [{ name: 'status-broken' }])).status).toBe(200);
  browser = await startBrowser();
  browser.context.on('request', (request) => void requested.push(request.url()));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await cp?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
});

describe('the status page in a real browser', () => {
  it("sends a browser at cloudctl's root to the status page", async () => {
    const root = await fetch(`${cp.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/status');
    const page = await browser.context.newPage();
    await page.goto(`${cp.url}/`);
    expect(page.url()).toMatch(new RegExp(`^${cp.url}/status/`));
    expect(await page.title()).toBe('Sign in · cloudctl');
    await page.close();
  });

  it('answers 401 with the sign-in page; the token becomes an HttpOnly SameSite=Strict cookie for /status only', async () => {
    const page = await browser.context.newPage();
    const first = await page.goto(`${cp.url}/status/accounts`);
    expect(first?.status()).toBe(401);
    expect(await page.title()).toBe('Sign in · cloudctl');
    expect(await page.locator('input[name=token][type=password]').count()).toBe(1);
    await screenshot(page, 'login');

    await page.fill('input[name=token]', USERS.dev.token);
    await Promise.all([page.waitForURL(`${cp.url}/status/accounts`), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('Accounts');
    const [cookie] = await browser.context.cookies(`${cp.url}/status`);
    expect(cookie).toMatchObject({ path: '/status', httpOnly: true, sameSite: 'Strict', secure: false });
    // The cookie signs in to the status page only: the API still wants a bearer header.
    const api = await fetch(`${cp.url}/vendor/accounts`, {
      headers: { cookie: `${cookie?.name}=${cookie?.value}` },
    });
    expect(api.status).toBe(401);
    await page.close();
  });

  it('shows a user the accounts GET /vendor/accounts shows them, and the refusal page for one they may not read', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${cp.url}/status/accounts`);
    const rows = await accountRows(page);
    const api = (await dev.get('/vendor/accounts')).body;
    expect(rows.map((r) => r.name)).toEqual(api.items.map((a: { name: string }) => a.name));
    expect(rows.map((r) => r.name)).toContain('status-shared');
    expect(rows.map((r) => r.name)).not.toContain('status-secret');

    const refused = await page.goto(`${cp.url}/status/accounts/status-secret`);
    expect(refused?.status()).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('Not allowed');
    expect(await page.locator('[role=alert]').textContent()).toBe('dana may not read account status-secret');
    expect((await dev.get('/vendor/accounts/status-secret')).status).toBe(403);
    await screenshot(page, 'refused');
    await page.goto(`${cp.url}/status/agents`);
    await signOut(page);
    expect(await browser.context.cookies(`${cp.url}/status`)).toEqual([]);
    expect((await page.goto(`${cp.url}/status/agents`))?.status()).toBe(401);
    await page.close();
  });

  it('refuses a sign-in form sent from another site', async () => {
    const answer = await fetch(`${cp.url}/status/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://elsewhere.example' },
      body: `token=${USERS.admin.token}`,
      redirect: 'manual',
    });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('shows the agents as the API reports them: id, zone, version, times, the accounts each holds and caches', async () => {
    const page = await browser.context.newPage();
    await signIn(page, cp.url, USERS.admin.token, '/status/agents');
    const rows = await page.$$eval('section[data-section="agents"] tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.querySelector('[data-agent]')?.textContent,
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim()),
        times: [...tr.querySelectorAll('time')].map((t) => t.getAttribute('datetime')),
        accounts: [...tr.querySelectorAll('li[data-account]')].map((li) => ({
          name: li.getAttribute('data-account'),
          caching: li.getAttribute('data-caching') === 'true',
        })),
      })),
    );
    const introspection = (await root.get('/cache/introspection')).body;
    const records = (await root.get('/vendor/accounts')).body.items;
    const session = cp.plane.registry.list()[0];
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.id).toBe(introspection[0].agentId);
    expect(row?.cells[1]).toBe('connected');
    // The in-process agent runs outside a pod: it has no zone, and the page says so.
    expect(introspection[0].zoneId).toBe('');
    expect(row?.cells[2]).toBe('none');
    expect(row?.cells[3]).toBe(pkg.version);
    // A heartbeat may land between the render and this read: the page's is at most the live one.
    expect(row?.times[0]).toBe(session?.connectedAt.toISOString());
    expect(Date.parse(row?.times[1] ?? '')).toBeGreaterThanOrEqual(
      session?.connectedAt.getTime() ?? Infinity,
    );
    expect(Date.parse(row?.times[1] ?? '')).toBeLessThanOrEqual(session?.lastHeartbeatAt.getTime() ?? -1);
    const held = records.flatMap((r: { name: string; agents: { agentId: string; caching: boolean }[] }) =>
      r.agents.filter((a) => a.agentId === row?.id).map((a) => ({ name: r.name, caching: a.caching })),
    );
    expect(row?.accounts).toEqual(held);
    expect(row?.accounts).toContainEqual({ name: 'status-shared', caching: true });
    await screenshot(page, 'agents');
    await page.close();
  });

  it("shows each account's state, message, kinds and object counts as the API reports them", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${cp.url}/status/accounts`);
    const rows = await accountRows(page);
    const records = (await root.get('/vendor/accounts')).body.items;
    const introspection = (await root.get('/cache/introspection')).body;
    expect(rows.map((r) => [r.name, r.state])).toEqual(
      records.map((r: { name: string; state: string }) => [r.name, r.state]),
    );
    expect(rows.find((r) => r.name === 'status-broken')?.state).toBe('INACTIVE');
    for (const record of introspection) {
      const kinds = Object.fromEntries(
        record.kinds.map((k: { kind: string; count: number }) => [k.kind, k.count]),
      );
      expect(rows.find((r) => r.name === record.account)?.kinds).toEqual(kinds);
    }
    // Two ConfigMaps of the test and the namespace's root CA bundle.
    expect(rows.find((r) => r.name === 'status-shared')?.kinds).toEqual({ configMap: 3 });
    await page.close();
  });

  it('shows an account going FAILED, with its message, without a reload', async () => {
    const page = await browser.context.newPage();
    let loads = 0;
    page.on('load', () => {
      loads += 1;
    });
    await page.goto(`${cp.url}/status/accounts`);
    await page.locator('body').evaluate((body) => {
      body.dataset.marker = 'same document';
    });
    const missing = join(sharedCluster().kubeconfigPath, '..', 'no-such-kubeconfig.yaml');
    const patched = await root.patch('/vendor/accounts', [
      { name: 'status-broken', state: 'ACTIVE', orchConfigFile: missing },
    ]);
    expect(patched.status).toBe(200);
    const failed = page.locator('tr:has([data-account="status-broken"]) [data-state="FAILED"]');
    await failed.waitFor({ timeout: 20_000 });
    const record = (await root.get('/vendor/accounts/status-broken')).body;
    expect(record.state).toBe('FAILED');
    expect(record.lastAssignmentMsg).toMatch(/^agent agent-1 failed to add the account: /);
    const row = (await accountRows(page)).find((r) => r.name === 'status-broken');
    expect(row?.message).toBe(record.lastAssignmentMsg);
    expect(await page.locator('body').evaluate((body) => body.dataset.marker)).toBe('same document');
    expect(loads).toBe(1);
    expect(await page.locator('#live-state').textContent()).toMatch(/^updated /);
    await screenshot(page, 'accounts');
    await page.close();
  });

  it('shows recent tasks and operations with outcome and duration, and a task in detail', async () => {
    const started = await root.post('/ops', [
      {
        deployManifest: {
          account: 'status-shared',
          moniker: { app: 'shop' },
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'from-status', namespace: NS },
              data: { a: '1' },
            },
          ],
        },
      },
    ]);
    expect(started.status).toBe(200);
    const id: string = started.body.id;
    let task = (await root.get(`/task/${id}`)).body;
    for (let i = 0; i < 100 && !task.status.completed; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      task = (await root.get(`/task/${id}`)).body;
    }
    expect(task.status).toMatchObject({ completed: true, failed: false });

    const page = await browser.context.newPage();
    await page.goto(`${cp.url}/status/tasks`);
    const taskRow = page.locator(`section[data-section="tasks"] tr:has([data-task="${id}"])`);
    expect(await taskRow.locator('[data-outcome]').getAttribute('data-outcome')).toBe('succeeded');
    expect(await taskRow.locator('td').nth(5).textContent()).toMatch(/^\d+(\.\d)? m?s$/);
    expect(await taskRow.locator('td').nth(7).textContent()).toBe(task.status.status);
    const operations = page.locator('section[data-section="operations"] tbody tr');
    expect(await operations.count()).toBeGreaterThan(0);
    expect(await operations.first().locator('td').nth(1).textContent()).toBe('deploy');
    expect(await operations.first().locator('[data-outcome]').getAttribute('data-outcome')).toBe('succeeded');
    await screenshot(page, 'tasks');

    await Promise.all([page.waitForURL(`${cp.url}/status/tasks/${id}`), page.click(`[data-task="${id}"]`)]);
    const history = await page.$$eval('ol.history li', (items) => items.map((li) => li.textContent));
    expect(history).toEqual(
      task.history.map((h: { phase: string; status: string }) => `${h.phase} ${h.status}`),
    );
    expect(await page.locator('pre.json').textContent()).toBe(JSON.stringify(task.resultObjects, null, 2));
    await screenshot(page, 'task');
    await page.close();
  });

  it('shows a fresh install readable empty pages', async () => {
    const fresh = await startTestControlPlane();
    try {
      const page = await browser.context.newPage();
      // Tools may send the bearer header to the status page, as to the API.
      await page.setExtraHTTPHeaders({ authorization: `Bearer ${USERS.admin.token}` });
      await page.goto(`${fresh.url}/status/agents`);
      expect(await page.locator('.empty strong').textContent()).toBe('No agent has connected yet.');
      await screenshot(page, 'empty');
      await page.goto(`${fresh.url}/status/accounts`);
      expect(await page.locator('.empty strong').textContent()).toBe('No accounts you may read.');
      await page.goto(`${fresh.url}/status/tasks`);
      expect(await page.locator('.empty strong').allTextContents()).toEqual([
        'No tasks yet.',
        'No operations yet.',
      ]);
      await page.close();
    } finally {
      await fresh.close();
    }
  });

  it('keeps its pages out of the API document, fetches nothing from elsewhere, and logs no token', async () => {
    const document = (await root.get('/v2/api-docs')).body;
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/status'))).toEqual([]);
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !url.startsWith('http://127.0.0.1:'))).toEqual([]);
    const logged = JSON.stringify(cp.logs);
    for (const user of Object.values(USERS)) expect(logged).not.toContain(user.token);
  });
});
