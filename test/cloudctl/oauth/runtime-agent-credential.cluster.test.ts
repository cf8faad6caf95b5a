// An agent joins with a credential made at runtime (issue 39, "a new agent joins with a credential
// made at runtime"): `cloudctl serve` and `orch-agent run` as processes, the shared cluster, Debian's
// headless Chromium. An administrator creates a remote network agent credential on the status page,
// which shows the secret once; an agent cloudctl's config does not know runs with it and serves its
// account, with no change to cloudctl's config and no restart. Rotating the secret disconnects it until
// it runs with the new one; revoking it on the page disconnects it for good. No secret of the run
// reaches the output of cloudctl or the agent.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { screenshot, signIn, startBrowser, type TestBrowser } from '../status-page/browser.ts';

const NAME = 'runtime-agent';
/** The agent the credential is bound to: cloudctl's config names another one only. */
const NEW_AGENT = 'edge-runtime-1';
const token = (what: string) => `${what}-${randomBytes(12).toString('base64url')}`;
const ADMIN = { name: 'root', token: token('admin'), roles: ['admins'] };
const OPS = { name: 'olaf', token: token('ops'), roles: ['ops'] };
/** Every secret of the run, to look for in the output at the end. */
const secrets = new Set<string>([ADMIN.token, OPS.token]);

let dir: string;
let system: TestSystem;
let cluster: ClusterClient;
let browser: TestBrowser;
let page: Page;
/** The output of the agent processes stopped during the run. */
const agentOutputs: string[] = [];

async function api(method: string, path: string, body?: unknown, bearer = ADMIN.token) {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

/** Whether the agent process says it is connected and synced. */
async function agentReady(): Promise<boolean> {
  return fetch(`${system.agentUrl}/ready`).then(
    (r) => r.status === 200,
    () => false,
  );
}

/** The row the credentials page shows for the credential named `name`. */
function rowOf(name: string) {
  return page.locator('section[data-section="clients"] tbody tr', { hasText: name });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${NAME}-`));
  cluster = sharedClusterClient();
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAME } },
  });
  const configured = { id: 'configured-agent', token: token('configured-agent') };
  secrets.add(configured.token);
  system = await TestSystem.startCloudctl({
    dir,
    agent: configured,
    users: [ADMIN, OPS],
    account: {
      name: NAME,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NAME],
      kinds: ['configMap'],
      read: ['ops'],
      write: ['ops'],
    },
    config: 'auth:\n  adminRoles: [admins]',
  });
  browser = await startBrowser();
  page = await browser.context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NAME}`);
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a remote network agent credential made on the status page', () => {
  let secret = '';

  it('is created by an administrator, its secret shown once and never on the list', async () => {
    await signIn(page, system.url, ADMIN.token, '/status/clients');
    await page.fill('#client-name', 'edge cluster agent');
    await page.selectOption('#client-type', 'remoteNetworkAgent');
    await page.fill('#client-roles', 'ops, deployers');
    await page.fill('#client-agent', NEW_AGENT);
    await page.click('button[data-action="create"]');
    await page.waitForSelector('code[data-secret]');
    secret = (await page.textContent('code[data-secret]')) ?? '';
    secrets.add(secret);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.textContent('main')).toContain('shown this once only');
    expect(await page.textContent('main')).toContain(NEW_AGENT);
    await screenshot(page, 'client-secret');

    await page.goto(`${system.url}/status/clients`);
    const row = rowOf('edge cluster agent');
    expect(await row.textContent()).toContain('Remote network agent');
    expect(await row.textContent()).toContain(NEW_AGENT);
    expect(await row.textContent()).toContain('deployers');
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'clients');

    // The same as the API lists, with the roles as given.
    const listed = (await api('GET', '/clients')).json();
    expect(listed).toEqual([
      expect.objectContaining({
        type: 'remoteNetworkAgent',
        agentId: NEW_AGENT,
        roles: ['ops', 'deployers'],
      }),
    ]);
  });

  it('refuses people who are not administrators, on the page as in the API', async () => {
    const refused = await api('GET', '/status/clients', undefined, OPS.token);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('only an administrator manages client credentials');
    expect((await api('GET', '/clients', undefined, OPS.token)).status).toBe(403);
  });

  it('says in words what is wrong with a form, as POST /clients does', async () => {
    await page.goto(`${system.url}/status/clients`);
    await page.fill('#client-name', 'no agent id');
    await page.selectOption('#client-type', 'remoteNetworkAgent');
    await page.fill('#client-roles', 'ops');
    await page.click('button[data-action="create"]');
    expect(await page.textContent('main')).toContain('needs the agentId it connects as');
    expect((await api('GET', '/clients')).json()).toHaveLength(1);
  });

  it("lets an agent cloudctl's config does not know join and serve its account, with no restart", async () => {
    const pid = system.cloudctl.child.pid;
    await system.startAgent({ as: { id: NEW_AGENT, token: secret } });
    await cluster.request('POST', `/api/v1/namespaces/${NAME}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'joined' }, data: { a: '1' } },
    });
    await expect
      .poll(async () => (await api('GET', `/manifests/${NAME}/${NAME}/configMap%20joined`)).status, {
        timeout: 30_000,
      })
      .toBe(200);
    const account = (await api('GET', `/agents/orchestrator/accounts/${NAME}`)).json();
    expect(account.agents).toEqual([{ agentId: NEW_AGENT, caching: true }]);
    expect(system.cloudctl.child.pid).toBe(pid);
  });

  it('rotated: the agent is disconnected at once and joins again with the new secret only', async () => {
    const [credential] = (await api('GET', '/clients')).json();
    const rotated = await api('POST', `/clients/${credential.clientId}/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.json().clientSecret;
    secrets.add(fresh);
    await expect.poll(agentReady, { timeout: 30_000 }).toBe(false);
    expect(system.cloudctl.output()).toContain('revoked or its secret rotated');

    await system.killAgent();
    agentOutputs.push(system.agent?.output() ?? '');
    await system.startAgent({ as: { id: NEW_AGENT, token: fresh } });
    expect(await agentReady()).toBe(true);
  });

  it('revoked on the page: the agent is disconnected, and refused when it comes back', async () => {
    await page.goto(`${system.url}/status/clients`);
    const row = rowOf('edge cluster agent');
    await Promise.all([
      page.waitForURL(`${system.url}/status/clients`),
      row.locator('button', { hasText: 'Revoke' }).click(),
    ]);
    expect(await rowOf('edge cluster agent').textContent()).toContain('revoked');
    await screenshot(page, 'clients-revoked');

    await expect.poll(agentReady, { timeout: 30_000 }).toBe(false);
    const before = system.cloudctl.output().split('unknown bearer token').length;
    await expect
      .poll(() => system.cloudctl.output().split('unknown bearer token').length, { timeout: 30_000 })
      .toBeGreaterThan(before);
  });

  it('leaves no secret in the output of cloudctl or the agent', async () => {
    const output = [system.cloudctl.output(), ...agentOutputs, system.agent?.output() ?? ''].join('\n');
    expect(output).toContain(NEW_AGENT);
    for (const value of secrets) {
      expect(output).not.toContain(value);
      expect(output).not.toContain(Buffer.from(value).toString('base64'));
    }
  });
});
