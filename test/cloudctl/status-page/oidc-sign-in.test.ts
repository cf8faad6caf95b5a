// The status page signs people in at the OpenID Connect provider, in Debian's headless Chromium:
// Ory Hydra on another site (localhost) than cloudctl (127.0.0.1), the authorization-code flow with
// PKCE, the access token kept in the page's HttpOnly session cookie. A person sees only the accounts
// their groups may read, and signing out forgets the token. A callback the browser did not start
// (another state) signs no one in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../cluster/free-port.ts';
import { Hydra } from '../auth/hydra-provider.ts';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
} from '../harness.ts';
import { startBrowser, type TestBrowser } from './browser.ts';

const AUDIENCE = 'cloudctl-api';

let dir: string;
let hydra: Hydra;
let cp: TestControlPlane;
let agent: TestAgent;
let browser: TestBrowser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oidc-status-'));
  hydra = await Hydra.start(join(dir, 'hydra'), { alice: ['team-a-readers'] }, 'localhost');
  const port = await freePort();
  const redirectUrl = `http://127.0.0.1:${port}/status/oidc/callback`;
  const client = await hydra.createClient(AUDIENCE, redirectUrl);
  cp = await startTestControlPlane({
    http: { port },
    auth: {
      oidc: {
        issuer: hydra.issuer,
        audience: AUDIENCE,
        statusPage: { clientId: client.clientId, clientSecret: client.clientSecret, redirectUrl },
      },
    },
  });
  agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
  await agent.connect({
    ...helloFor('agent-1', []),
    accounts: ['team-a', 'team-b'].map((name) => ({
      name,
      permissions: { read: [`${name}-readers`], write: ['ops'] },
      apiServerHost: 'https://127.0.0.1:6443',
      kubernetesVersion: 'v1.33.1',
    })),
  });
  browser = await startBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  agent?.close();
  await cp?.close();
  await hydra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function accountNames(page: Page): Promise<string[]> {
  return page.$$eval('section[data-section="accounts"] tbody tr [data-account]', (cells) =>
    cells.map((cell) => cell.getAttribute('data-account') ?? ''),
  );
}

describe('signing in to the status page at the provider', () => {
  it('signs alice in with her groups, shows only what they may read, and signs her out', async () => {
    hydra.browserUser.name = 'alice';
    const page = await browser.context.newPage();
    const first = await page.goto(`${cp.url}/status/accounts`);
    expect(first?.status()).toBe(401);
    await Promise.all([
      page.waitForURL(`${cp.url}/status/accounts`),
      page.click('a[href^="/status/oidc/login"]'),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Accounts');
    expect(await page.locator('.user').textContent()).toBe('alice');
    expect(await accountNames(page)).toEqual(['team-a']);
    const cookies = await browser.context.cookies(`${cp.url}/status`);
    const session = cookies.find((c) => c.name === 'cloudctl-status-token');
    expect(session).toMatchObject({ path: '/status', httpOnly: true, sameSite: 'Strict' });
    // team-b is not hers: the refusal page.
    expect((await page.goto(`${cp.url}/status/accounts/team-b`))?.status()).toBe(403);

    await page.goto(`${cp.url}/status/accounts`);
    await Promise.all([
      page.waitForURL(`${cp.url}/status/login`),
      page.click('form[action="/status/logout"] button'),
    ]);
    const after = await browser.context.cookies(`${cp.url}/status`);
    expect(after.find((c) => c.name === 'cloudctl-status-token')).toBeUndefined();
    expect((await page.goto(`${cp.url}/status/accounts`))?.status()).toBe(401);
    await page.close();
  });

  it('signs no one in from a callback this browser did not start', async () => {
    const page = await browser.context.newPage();
    const answer = await page.goto(`${cp.url}/status/oidc/callback?code=stolen&state=not-mine`);
    expect(answer?.status()).toBe(400);
    expect(await page.locator('[role=alert]').textContent()).toMatch(/not started in this browser/);
    const cookies = await browser.context.cookies(`${cp.url}/status`);
    expect(cookies.find((c) => c.name === 'cloudctl-status-token')).toBeUndefined();
    await page.close();
  });
});
