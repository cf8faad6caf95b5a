// How the status page draws a plan (views/plan-diff.ts), read back from Debian's headless Chromium as
// a person reads it: each object's action in words, each changed path with before → after, a Secret's
// values never, the API server's refusal in its own words, the permission the agent lacks as verb,
// resource and namespace, and what is not known. The plan is a PlanRecord as GET /plans/{id} answers
// it (parsed by its schema). STATUS_PAGE_SCREENSHOTS=<dir> writes status-plan-diff.png.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRecordSchema } from '../../../src/cloudctl/plans/index.ts';
import { planCounts, planDiff } from '../../../src/cloudctl/status-page/views/plan-diff.ts';
import { screenshot, startBrowser, type TestBrowser } from './browser.ts';

const REFUSAL = "ValidatingAdmissionPolicy 'no-latest' denied request: <img src=x> images must be pinned";
/** What a Secret's value digest looks like in a record that forgot to hide it: never shown. */
const DIGEST = 'sha256:4f1c0ffee';

const plan = planRecordSchema.parse({
  id: 'p-1a2b3c4d5e',
  source: 'operations',
  createdBy: 'olaf',
  createdAt: '2026-11-28T20:00:00.000Z',
  expiresAt: '2026-11-28T21:00:00.000Z',
  state: 'planned',
  accounts: ['shop-prod'],
  operations: [
    {
      name: 'deployManifest',
      account: 'shop-prod',
      description: 'Deploy 3 manifests into shop',
      prepared: {
        manifests: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }],
        boundArtifacts: [],
      },
      objects: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'shop',
          name: 'web',
          action: 'update',
          resourceVersion: '4711',
          diff: [
            { path: 'spec.template.spec.containers[0].image', before: 'web:1.0', after: 'web:1.1' },
            { path: 'spec.replicas', before: 2, after: 3 },
            { path: 'metadata.labels.tier', after: 'front' },
            { path: 'spec.template.spec.containers[0].args', before: ['--slow'] },
          ],
          dryRun: { allowed: true },
          access: [
            { verb: 'patch', group: 'apps', resource: 'deployments', namespace: 'shop', allowed: true },
          ],
          unknown: [],
        },
        {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'shop',
          name: 'web-db',
          action: 'update',
          resourceVersion: '4712',
          diff: [{ path: 'data.password', before: DIGEST, after: DIGEST, secret: true }],
          dryRun: { allowed: true },
          access: [
            {
              verb: 'delete',
              group: '',
              resource: 'secrets',
              namespace: 'shop',
              allowed: false,
              reason: 'no RBAC policy matched',
            },
          ],
          unknown: [],
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'shop',
          name: 'web-conf-v003',
          action: 'create',
          resourceVersion: null,
          diff: [
            { path: 'kind', after: 'ConfigMap' },
            { path: 'data.mode', after: 'strict' },
          ],
          dryRun: { allowed: false, reason: 'Invalid', message: REFUSAL },
          access: [],
          unknown: [],
        },
      ],
      unknown: [],
    },
    {
      name: 'runJob',
      account: 'shop-prod',
      description: 'Run job migrate in shop',
      prepared: { manifests: [], boundArtifacts: [] },
      objects: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          namespace: 'shop',
          name: 'migrate',
          action: 'unchanged',
          resourceVersion: '90',
          diff: [],
          dryRun: { allowed: true },
          access: [],
          unknown: ["the job's outcome and its logs"],
        },
      ],
      unknown: ['what the job writes when it runs'],
    },
  ],
  summary: { create: 1, update: 2, unchanged: 1, delete: 0, refused: 1, forbidden: 1 },
  resourceUri: '/plans/p-1a2b3c4d5e',
  applyUri: '/plans/p-1a2b3c4d5e/apply',
});

let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.context.newPage();
  const css = readFileSync(
    new URL('../../../src/cloudctl/status-page/assets/status.css', import.meta.url),
    'utf8',
  );
  // The style sheet as is (it is ours), the plan's markup as the page sends it.
  await page.setContent(
    `<!doctype html><html><head><style>${css}</style></head><body><main><p>${planCounts(plan.summary).text}</p>${planDiff(plan).text}</main></body></html>`,
  );
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const object = (name: string) => page.locator(`[data-object="${name}"]`);
const text = async (selector: string) =>
  (await page.locator(selector).textContent())?.replace(/\s+/g, ' ').trim();

describe('a plan on the status page', () => {
  it('counts what it would do in words', async () => {
    expect(await text('.plan-counts')).toBe(
      '1 to create, 2 to update, 1 unchanged; ✗ 1 refused by the API server; ✗ 1 the agent may not write',
    );
  });

  it("names each object's action in words, per operation, in the plan's order", async () => {
    const headings = await page.locator('.planned-object h4').allTextContents();
    expect(headings.map((h) => h.replace(/\s+/g, ' ').trim())).toEqual([
      '~ update Deployment shop/web in account shop-prod · resourceVersion 4711 when planned',
      '~ update Secret shop/web-db in account shop-prod · resourceVersion 4712 when planned',
      '+ create ConfigMap shop/web-conf-v003 in account shop-prod · absent when planned',
      '= unchanged Job shop/migrate in account shop-prod · resourceVersion 90 when planned',
    ]);
    expect(await page.locator('.planned-operation h3').allTextContents()).toEqual([
      '1. deployManifest on account shop-prod',
      '2. runJob on account shop-prod',
    ]);
  });

  it('shows each changed path with before → after, and added and removed fields as such', async () => {
    const rows = await object('Deployment shop/web')
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
    expect(rows).toEqual([
      ['spec.template.spec.containers[0].image', '~ changed', 'web:1.0', '→', 'web:1.1'],
      ['spec.replicas', '~ changed', '2', '→', '3'],
      ['metadata.labels.tier', '+ added', '(absent)', '→', 'front'],
      ['spec.template.spec.containers[0].args', '− removed', '["--slow"]', '→', '(absent)'],
    ]);
  });

  it("shows a Secret's change without its values", async () => {
    const row = object('Secret shop/web-db').locator('tr[data-path="data.password"]');
    expect(await row.locator('td').allTextContents()).toEqual([
      'data.password',
      '~ changed (secret)',
      '(hidden)',
      '→',
      '(hidden)',
    ]);
    expect(await page.content()).not.toContain(DIGEST);
  });

  it("shows a new object's fields each with its value, nothing before", async () => {
    const created = object('ConfigMap shop/web-conf-v003');
    expect(await text('[data-object="ConfigMap shop/web-conf-v003"] .created-fields summary')).toBe(
      '+ 2 fields, all new',
    );
    const rows = await created
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['kind', 'ConfigMap'],
      ['data.mode', 'strict'],
    ]);
  });

  it("shows the API server's refusal in its own words, as text", async () => {
    const refused = object('ConfigMap shop/web-conf-v003');
    expect(await refused.getAttribute('data-dry-run')).toBe('refused');
    expect((await refused.locator('.verdict-refused').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `✗ Refused by the API server's dry run (Invalid): ${REFUSAL}`,
    );
    expect(await page.locator('main img').count()).toBe(0);
  });

  it('names the permission the agent lacks as verb, resource and namespace', async () => {
    expect(
      (await object('Secret shop/web-db').locator('.verdict-forbidden').textContent())
        ?.replace(/\s+/g, ' ')
        .trim(),
    ).toBe('✗ The agent may not delete secrets in namespace shop (no RBAC policy matched)');
    expect(await object('Deployment shop/web').locator('.verdict-ok').textContent()).toContain(
      'the agent may do every write',
    );
  });

  it('says what is not known before it runs, for the operation and the object', async () => {
    expect(await page.locator('[data-operation="runJob"] [data-unknown]').allTextContents()).toEqual([
      '? Not known before it runs: what the job writes when it runs',
      "? Not known before it runs: the job's outcome and its logs",
    ]);
    await screenshot(page, 'plan-diff');
  });
});
