// Debian's Chromium, headless, driven by playwright-core: a fresh profile in a temporary directory,
// nothing fetched from the network (no component updates, no sync, no browser download). And what
// the status page tests do with it: sign in through the form, take the screenshots the docs show.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Set to docs/images to refresh the screenshots the docs show. */
const SHOTS = process.env.STATUS_PAGE_SCREENSHOTS;

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'status-page-chromium-'));
  // launchPersistentContext is playwright's way to give Chromium its --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Writes `status-<name>.png` when STATUS_PAGE_SCREENSHOTS names a directory. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `status-${name}.png`) });
}

/** Signs in on the sign-in page with `token` and lands on `path`. */
export async function signIn(page: Page, baseUrl: string, token: string, path: string): Promise<void> {
  await page.goto(`${baseUrl}/status/login?next=${encodeURIComponent(path)}`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForURL(`${baseUrl}${path}`), page.click('button[type=submit]')]);
}
