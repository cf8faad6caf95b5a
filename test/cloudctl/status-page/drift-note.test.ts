// How the applications view says an object drifted (views/drift-note.ts), read back from Debian's
// headless Chromium: each manager with the paths it changed and when, in words; Re-apply offered only
// where the user may write, saying what it will do; nothing for an object that did not drift; paths
// from the cluster stay text.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectFacts } from '../../../src/cloudctl/status-page/application-facts.ts';
import { html } from '../../../src/cloudctl/status-page/safe-html.ts';
import { driftNote } from '../../../src/cloudctl/status-page/views/drift-note.ts';
import { startBrowser, type TestBrowser } from './browser.ts';

const NOW = new Date('2026-11-28T20:05:00Z');

const drifted: ObjectFacts = {
  key: 'prod/shop/replicaSet web-v001',
  account: 'prod',
  namespace: 'shop',
  kind: 'replicaSet',
  name: 'web-v001',
  status: null,
  drift: {
    managers: [
      {
        manager: 'kubectl',
        operation: 'Update',
        subresource: 'scale',
        time: '2026-11-28T20:03:00Z',
        paths: ['spec.replicas'],
        morePaths: 0,
      },
      {
        manager: 'kubectl-edit',
        operation: 'Update',
        time: null,
        paths: ['spec.template.spec.containers[name=web].image', 'spec.template.metadata.labels["<b>x</b>"]'],
        morePaths: 3,
      },
    ],
  },
};

let browser: TestBrowser;
let page: Page;

async function show(o: ObjectFacts, writable: ReadonlySet<string>): Promise<void> {
  await page.setContent(html`<main>${driftNote(o, writable, NOW)}</main>`.text);
}

const words = (text: string | null) => text?.replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('a drifted object on the applications view', () => {
  it('names each manager with the paths it changed and when, as text', async () => {
    await show(drifted, new Set());
    expect(await page.locator('[data-drift]').getAttribute('data-drift')).toBe('kubectl kubectl-edit');
    expect((await page.locator('[data-drift] li').allTextContents()).map(words)).toEqual([
      'spec.replicas changed by kubectl (scale) 2 min 0 s ago',
      'spec.template.spec.containers[name=web].image, spec.template.metadata.labels["<b>x</b>"] and 3 more changed by kubectl-edit (when is not recorded)',
    ]);
    expect(words(await page.locator('[data-drift]').textContent())).toMatch(
      /^⚠ Drifted from what cloudctl deployed:/,
    );
    expect(await page.locator('main b').count()).toBe(0);
  });

  it('offers Re-apply only where the user may write, saying what it will do', async () => {
    expect(await page.locator('button[data-reapply]').count()).toBe(0);
    await show(drifted, new Set(['prod']));
    const button = page.locator('button[data-reapply]');
    expect(await button.getAttribute('data-manifest')).toBe('replicaSet web-v001');
    expect(await button.getAttribute('data-location')).toBe('shop');
    expect(await button.getAttribute('data-says')).toBe(
      'Plan re-applying what cloudctl deployed as replicaSet web-v001 in prod/shop, undoing the changes of kubectl (scale), kubectl-edit. The plan opens and shows what it would change; nothing is written until you apply it.',
    );
  });

  it('says nothing of an object that did not drift', async () => {
    await show({ ...drifted, drift: null }, new Set(['prod']));
    expect(await page.locator('main').innerHTML()).toBe('');
  });
});
