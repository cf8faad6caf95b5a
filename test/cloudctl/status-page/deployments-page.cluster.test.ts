// The deployments view of the status page in a real browser (Debian's headless Chromium) against an
// in-process cloudctl, a real agent, the shared real cluster and a webhook receiver that behaves like
// an external job. A deployment shows up while the list is open, waits at its webhook and then at an
// afterDeployment approval, live; the job's mdMessage is shown as text; users who may not decide see
// no buttons and their forged forms are refused; Approve, Reject and Rollback are clicked on the page
// and the API agrees with what it then shows.
// Set STATUS_PAGE_SCREENSHOTS=docs/images to refresh the screenshots the docs show.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/cloudctl/index.ts';
import { type RunningAgent, startAgent } from '../../agent/watch/watch-fixture.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { WebhookReceiver } from '../deployments/webhook-receiver.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { screenshot, signIn, startBrowser, type TestBrowser } from './browser.ts';

const NS = 'status-deployments';
const ACCOUNT = 'status-deployments';
/** A user with no role on the account: may not even read it. */
const OUTSIDER = { name: 'otto', token: 'token-of-otto-4e81', roles: ['outsiders'] };
/** What the webhook job says: markup that must stay text, and a bold mark the page may show. */
const MD_MESSAGE = '<b>x</b> and **checked**';

let cp: TestControlPlane;
let agent: RunningAgent;
let cluster: ClusterClient;
let receiver: WebhookReceiver;
let browser: TestBrowser;
/** olaf: WRITE on the account and the role the approval requires. */
let ops: ApiClient;
let received = 0;
/** Signed in as olaf through the sign-in form (the session cookie). */
let page: Page;
let loads = 0;
let first = '';

function deploymentFile(image: string): string {
  const manifests = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: spud
spec:
  replicas: 2
  selector:
    matchLabels: {app: spud}
  template:
    metadata:
      labels: {app: spud}
    spec:
      containers:
        - name: web
          image: ${image}
`;
  return `
application: spud
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: halves
    constraints:
      beforeDeployment:
        - runWebhook: {name: check}
      afterDeployment:
        - pause:
            untilApproved: true
            requiresRoles: [ops]
strategies:
  halves:
    canary:
      steps:
        - setWeight: {weight: 50}
webhooks:
  - name: check
    method: POST
    uriTemplate: ${receiver.url}/hooks/check
    networkMode: direct
    headers:
      - {key: Content-Type, value: application/json}
    bodyTemplate:
      inline: '{"callbackUri": "{{vendor.callbackUri}}"}'
manifests:
  - inline: |
${manifests.replace(/^(?=.)/gm, '      ')}`;
}

interface View {
  id: string;
  status: string;
  targets: Array<{
    name: string;
    status: string;
    message?: string;
    steps: Array<{ key: string; status: string; message?: string; mdMessage?: string }>;
  }>;
}

async function view(id: string): Promise<View> {
  const answer = await ops.get(`/deployments/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

function step(v: View, key: string) {
  const found = v.targets[0]?.steps.find((s) => s.key === key);
  if (found === undefined) throw new Error(`no step ${key} in ${JSON.stringify(v.targets[0]?.steps)}`);
  return found;
}

/** Polls the API until `done` holds for the deployment. */
async function until(id: string, what: string, done: (v: View) => boolean): Promise<View> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await view(id);
    if (done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`deployment ${id}: ${what} not reached: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function submit(image: string): Promise<string> {
  const answer = await ops.post('/deployments', { file: deploymentFile(image), fileName: 'spud.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.id;
}

/** A page of another user, who sends a bearer header instead of signing in. */
async function pageAs(token: string, path: string): Promise<{ page: Page; status: number | undefined }> {
  const other = await browser.context.newPage();
  await other.setExtraHTTPHeaders({ authorization: `Bearer ${token}` });
  const answer = await other.goto(`${cp.url}${path}`);
  return { page: other, status: answer?.status() };
}

/** A form posted as a browser on this host would post it (Origin: cloudctl), not through the page. */
async function forge(path: string, token: string, fields: Record<string, string>, origin = cp.url) {
  const answer = await fetch(`${cp.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      origin,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: answer.status, text: await answer.text() };
}

/** Clicks a button whose form posts and comes back to the page; resolves once the page has loaded. */
async function clickAndReload(selector: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.click(selector)]);
}

const stepStatus = (key: string) => page.locator(`[data-step="${key}"]`).getAttribute('data-status');

beforeAll(async () => {
  cluster = sharedClusterClient();
  receiver = await WebhookReceiver.start();
  cp = await startTestControlPlane({
    users: [...Object.values(USERS), OUTSIDER].map((u) => ({
      name: u.name,
      tokenHash: hashToken(u.token),
      roles: [...u.roles],
    })),
  });
  ops = apiClient(cp.url, USERS.ops.token);
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
          kinds: ['replicaSet'],
          // dana reads; olaf changes it and has the role the approval needs; nina changes it without.
          permissions: { READ: ['dev'], WRITE: ['ops', 'guests'] },
        },
      ],
    },
  });
  browser = await startBrowser();
  page = await browser.context.newPage();
  page.on('load', () => {
    loads += 1;
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await cp?.close();
  await receiver?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
});

describe('the deployments view of the status page', () => {
  it('lists none at first, then shows a new deployment waiting at its webhook without a reload', async () => {
    await signIn(page, cp.url, USERS.ops.token, '/status/deployments');
    expect(await page.locator('.empty strong').textContent()).toBe('No deployments you may read.');
    const loaded = loads;
    first = await submit('spud:1');
    await receiver.next(received);
    const row = page.locator(`section[data-section="deployments"] tr:has([data-deployment="${first}"])`);
    await row.waitFor({ timeout: 10_000 });
    expect(loads).toBe(loaded);
    const api = (await ops.get('/deployments')).body;
    expect(api.map((d: { id: string }) => d.id)).toEqual([first]);
    expect(await row.locator('td').nth(1).textContent()).toBe('spud');
    expect(await row.locator('[data-status]').first().getAttribute('data-status')).toBe(api[0].status);
    expect(await row.locator('li[data-target="staging"]').getAttribute('data-status')).toBe(
      api[0].targets[0].status,
    );
    expect(await row.locator('td').nth(4).textContent()).toBe('olaf');

    await Promise.all([page.waitForURL(`${cp.url}/status/deployments/${first}`), row.locator('a').click()]);
    expect(await stepStatus('staging/beforeDeployment[0]')).toBe('RUNNING');
    expect(await page.locator('[data-nothing-to-decide]').count()).toBe(1);
  });

  it("shows the approval as it comes, live, and the job's mdMessage as text, never markup", async () => {
    const loaded = loads;
    const call = await receiver.next(received++);
    expect(
      await WebhookReceiver.callBack(call, USERS.ops.token, { success: true, mdMessage: MD_MESSAGE }),
    ).toMatchObject({ status: 200 });
    await page.locator('button[data-action="approve"]').waitFor({ timeout: 15_000 });
    expect(loads).toBe(loaded);
    const api = await view(first);
    expect(step(api, 'staging/afterDeployment[0]').status).toBe('RUNNING');
    expect(await stepStatus('staging/afterDeployment[0]')).toBe('RUNNING');
    expect(await stepStatus('staging/beforeDeployment[0]')).toBe('SUCCEEDED');
    const md = page.locator('[data-md]');
    expect(step(api, 'staging/beforeDeployment[0]').mdMessage).toBe(MD_MESSAGE);
    expect(await md.textContent()).toBe('<b>x</b> and checked');
    expect(await md.locator('strong').textContent()).toBe('checked');
    expect(await page.locator('main b').count()).toBe(0);
    expect(await page.locator('button[data-action="reject"]').count()).toBe(1);
    await screenshot(page, 'deployment');
  });

  it('offers no buttons to users who may not decide, refuses their forged forms, and hides it from outsiders', async () => {
    const path = `/status/deployments/${first}`;
    // dana may read the account, not change it; nina may change it but lacks the role the pause needs.
    for (const user of [USERS.dev, USERS.nobody]) {
      const other = await pageAs(user.token, path);
      expect(other.status).toBe(200);
      expect(await other.page.locator('[data-approval="staging"]').count()).toBe(1);
      expect(await other.page.locator('main form').count()).toBe(0);
      expect(await other.page.locator('[data-approval] [data-may-not-decide]').textContent()).toMatch(
        /^You may not decide it/,
      );
      await other.page.close();
    }
    const byDana = await forge(`${path}/approve`, USERS.dev.token, { target: 'staging' });
    expect(byDana.status).toBe(403);
    expect(byDana.text).toContain('dana may not change account status-deployments');
    const byNina = await forge(`${path}/approve`, USERS.nobody.token, { target: 'staging' });
    expect(byNina.status).toBe(403);
    expect(byNina.text).toContain('nina may not approve this pause: it needs one of the roles ops');
    // olaf may decide, but not with a form sent from another site.
    const crossSite = await forge(
      `${path}/approve`,
      USERS.ops.token,
      { target: 'staging' },
      'http://evil.example',
    );
    expect(crossSite.status).toBe(403);
    expect(step(await view(first), 'staging/afterDeployment[0]').status).toBe('RUNNING');

    // Someone who may not read the account sees what GET /deployments shows: nothing, and a 403.
    const outsider = apiClient(cp.url, OUTSIDER.token);
    expect((await outsider.get('/deployments')).body).toEqual([]);
    expect((await outsider.get(`/deployments/${first}`)).status).toBe(403);
    const list = await pageAs(OUTSIDER.token, '/status/deployments');
    expect(await list.page.locator('.empty strong').textContent()).toBe('No deployments you may read.');
    expect((await list.page.goto(`${cp.url}${path}`))?.status()).toBe(403);
    expect(await list.page.locator('[role=alert]').textContent()).toBe(
      'otto may not read account status-deployments',
    );
    await list.page.close();
  });

  it('approves from the page: the deployment goes on to SUCCEEDED, shown without another reload', async () => {
    await page.fill('input[name=message]', 'ship it');
    await clickAndReload('button[data-action="approve"]');
    expect(page.url()).toBe(`${cp.url}/status/deployments/${first}`);
    const loaded = loads;
    await page.locator('[data-deployment-status="SUCCEEDED"]').waitFor({ timeout: 15_000 });
    expect(loads).toBe(loaded);
    const api = await view(first);
    expect(api.status).toBe('SUCCEEDED');
    expect(step(api, 'staging/afterDeployment[0]').message).toBe('approved by olaf: ship it');
    expect(
      await page.locator('tr:has([data-step="staging/afterDeployment[0]"]) .message').textContent(),
    ).toBe('approved by olaf: ship it');
    expect(await stepStatus('staging/afterDeployment[0]')).toBe('SUCCEEDED');
  });

  it('rejects a second version from the page, then rolls it back from the page', async () => {
    const second = await submit('spud:2');
    await WebhookReceiver.callBack(await receiver.next(received++), USERS.ops.token, { success: true });
    await until(second, 'the approval', (v) => step(v, 'staging/afterDeployment[0]').status === 'RUNNING');
    await page.goto(`${cp.url}/status/deployments/${second}`);
    // Running: nothing to roll back yet.
    expect(await page.locator('button[data-action="rollback"]').count()).toBe(0);
    await page.fill('input[name=message]', 'not today');
    await clickAndReload('button[data-action="reject"]');
    await page.locator('[data-deployment-status="FAILED"]').waitFor({ timeout: 15_000 });
    const rejected = await view(second);
    expect(rejected.status).toBe('FAILED');
    expect(rejected.targets[0]?.message).toBe('rejected by olaf: not today');
    expect(await page.locator('[data-target-message]').textContent()).toBe('rejected by olaf: not today');

    // dana may read it but not roll it back: no button for her, 403 for her form.
    const dana = await pageAs(USERS.dev.token, `/status/deployments/${second}`);
    expect(await dana.page.locator('main form').count()).toBe(0);
    await dana.page.close();
    expect((await forge(`/status/deployments/${second}/rollback`, USERS.dev.token, {})).status).toBe(403);

    await page.locator('button[data-action="rollback"]').waitFor({ timeout: 5_000 });
    await clickAndReload('button[data-action="rollback"]');
    await page.locator('[data-deployment-status="ROLLED_BACK"]').waitFor({ timeout: 20_000 });
    const rolledBack = await view(second);
    expect(rolledBack.status).toBe('ROLLED_BACK');
    expect(rolledBack.targets[0]?.status).toBe('ROLLED_BACK');
    expect(await page.locator('button[data-action="rollback"]').count()).toBe(0);

    await page.goto(`${cp.url}/status/deployments`);
    const rows = await page.$$eval('section[data-section="deployments"] tbody tr', (trs) =>
      trs.map((tr) => [
        tr.querySelector('[data-deployment]')?.getAttribute('data-deployment'),
        tr.querySelector('[data-status]')?.getAttribute('data-status'),
      ]),
    );
    expect(rows).toEqual([
      [second, 'ROLLED_BACK'],
      [first, 'SUCCEEDED'],
    ]);
    await screenshot(page, 'deployments');
  });
});
