// The plan view of the status page in a real browser (Debian's headless Chromium) against an
// in-process cloudctl, a real agent and the shared real cluster. A Deployment is deployed through
// POST /ops, a plan of an image change is made through POST /plans, and the page shows it as the API
// answers it: the image path with before → after, nothing applied yet. A reader sees no Apply and
// has their forged form refused; someone who may not read the account gets the refusal page. Applying
// from the page starts the task and the page shows it; a second apply, and an apply after the object
// was edited, answer pages that say in words why nothing was done, and nothing is written. A
// deployment waiting for approval shows the plan approving applies beside Approve, and approving
// from the page applies it. A `kubectl scale` of a deployed object shows on the application view, live,
// as drift in words; its Re-apply opens the plan that undoes it, applied from there.
// STATUS_PAGE_SCREENSHOTS=docs/images refreshes the screenshots docs/plans.md shows.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningAgent, startAgent } from '../../agent/watch/watch-fixture.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { taskDone } from '../../support/task-wait.ts';
import { potatoManifests } from '../deployments/potato-app.ts';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { screenshot, signIn, startBrowser, type TestBrowser } from './browser.ts';

const NS = 'plans-page';
const ACCOUNT = 'plans-page';
const IMAGE_PATH = 'spec.template.spec.containers[0].image';

let cp: TestControlPlane;
let agent: RunningAgent;
let cluster: ClusterClient;
let browser: TestBrowser;
/** olaf: READ and WRITE on the account. */
let ops: ApiClient;
/** Signed in as olaf through the sign-in form. */
let page: Page;

const eventually = (check: () => Promise<void>, timeout = 30_000) =>
  vi.waitFor(check, { timeout, interval: 200 });

function deployment(name: string, image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image }] },
      },
    },
  };
}

const deployOperation = (manifest: unknown) => [
  { deployManifest: { account: ACCOUNT, moniker: { app: 'web' }, manifests: [manifest] } },
];

async function deploy(manifest: unknown): Promise<void> {
  const started = await ops.post('/ops', deployOperation(manifest));
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect((await taskDone(ops, started.body.id, 60_000)).status.failed).toBe(false);
}

interface Plan {
  id: string;
  state: string;
  createdBy: string;
  applied?: { id: string; resourceUri: string };
  operations: Array<{
    objects: Array<{
      kind: string;
      name: string;
      resourceVersion: string | null;
      diff: Array<{ path: string; before?: unknown; after?: unknown }>;
    }>;
  }>;
}

async function plan(manifest: unknown): Promise<Plan> {
  const answer = await ops.post('/plans', deployOperation(manifest));
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
  return answer.body;
}

async function liveImage(name: string): Promise<{ image: string; resourceVersion: string }> {
  const answer = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
  const body = answer.json as {
    metadata: { resourceVersion: string };
    spec: { template: { spec: { containers: Array<{ image: string }> } } };
  };
  return {
    image: body.spec.template.spec.containers[0]?.image ?? '',
    resourceVersion: body.metadata.resourceVersion,
  };
}

/** A form posted as a browser on this host would post it (Origin: cloudctl), not through the page. */
async function forge(path: string, token: string) {
  const answer = await fetch(`${cp.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      origin: cp.url,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: '',
    redirect: 'manual',
  });
  return { status: answer.status, text: await answer.text() };
}

/** A page of another user, who sends a bearer header instead of signing in. */
async function pageAs(token: string, path: string): Promise<{ page: Page; status: number | undefined }> {
  const other = await browser.context.newPage();
  await other.setExtraHTTPHeaders({ authorization: `Bearer ${token}` });
  const answer = await other.goto(`${cp.url}${path}`);
  return { page: other, status: answer?.status() };
}

const words = (text: string | null) => text?.replace(/\s+/g, ' ').trim();

let first: Plan;

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
          kinds: ['deployment', 'replicaSet', 'service'],
          // dana reads; olaf reads and changes; nina (guests) may not even read.
          permissions: { READ: ['dev', 'ops'], WRITE: ['ops'] },
        },
      ],
    },
  });
  await deploy(deployment('web', 'registry.example/web:1'));
  await deploy(deployment('api', 'registry.example/api:1'));
  browser = await startBrowser();
  page = await browser.context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await cp?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
});

describe('the plan view of the status page', () => {
  it('shows the plan as GET /plans/{id} answers it: the image path, before → after, nothing applied', async () => {
    const before = await liveImage('web');
    first = await plan(deployment('web', 'registry.example/web:2'));
    const api = (await ops.get(`/plans/${first.id}`)).body as Plan;
    const change = api.operations[0]?.objects[0]?.diff.find((c) => c.path === IMAGE_PATH);
    expect(change).toEqual({
      path: IMAGE_PATH,
      before: 'registry.example/web:1',
      after: 'registry.example/web:2',
    });

    await signIn(page, cp.url, USERS.ops.token, `/status/plans/${first.id}`);
    expect(await page.locator('[data-plan-state]').getAttribute('data-plan-state')).toBe('planned');
    const object = page.locator(`[data-object="Deployment ${NS}/web"]`);
    expect(await object.getAttribute('data-action')).toBe('update');
    const row = object.locator(`tr[data-path="${IMAGE_PATH}"]`);
    expect((await row.locator('td').allTextContents()).map((t) => t.trim())).toEqual([
      IMAGE_PATH,
      '~ changed',
      'registry.example/web:1',
      '→',
      'registry.example/web:2',
    ]);
    expect(words(await page.locator('[data-says]').textContent())).toMatch(
      /^Applying runs exactly these 1 operation \(1 object: 1 to update\) on plans-page as a task/,
    );
    // Planning wrote nothing.
    expect((await liveImage('web')).image).toBe(before.image);
    await screenshot(page, 'plan');
  });

  it('offers no Apply to a reader and refuses their form; hides the plan from who may not read the account', async () => {
    const path = `/status/plans/${first.id}`;
    const dana = await pageAs(USERS.dev.token, path);
    expect(dana.status).toBe(200);
    expect(await dana.page.locator('main form').count()).toBe(0);
    expect(words(await dana.page.locator('[data-may-not-apply]').textContent())).toBe(
      `You may not apply it: that needs WRITE on account ${ACCOUNT}.`,
    );
    await dana.page.close();
    const forged = await forge(`${path}/apply`, USERS.dev.token);
    expect(forged.status).toBe(403);
    expect((await ops.get(`/plans/${first.id}`)).body.state).toBe('planned');

    const nina = await pageAs(USERS.nobody.token, path);
    expect(nina.status).toBe(403);
    expect((await apiClient(cp.url, USERS.nobody.token).get(`/plans/${first.id}`)).status).toBe(403);
    await nina.page.close();
  });

  it('applies from the page: the task it started is shown, live, and the image is deployed', async () => {
    await Promise.all([page.waitForEvent('load'), page.click('button[data-action="apply"]')]);
    expect(page.url()).toBe(`${cp.url}/status/plans/${first.id}`);
    const api = (await ops.get(`/plans/${first.id}`)).body as Plan;
    expect(api.state).toBe('applied');
    const task = api.applied?.id ?? '';
    expect(await page.locator('[data-plan-state]').getAttribute('data-plan-state')).toBe('applied');
    expect(await page.locator(`[data-applied="${task}"] a`).getAttribute('href')).toBe(
      `/status/tasks/${task}`,
    );
    await page.locator(`[data-applied="${task}"] [data-outcome="succeeded"]`).waitFor({ timeout: 60_000 });
    expect((await taskDone(ops, task)).status.failed).toBe(false);
    expect((await liveImage('web')).image).toBe('registry.example/web:2');
    expect(await page.locator('button[data-action="apply"]').count()).toBe(0);
    await screenshot(page, 'plan-applied');
  });

  it('says in words why a second apply did nothing: the plan was applied, by which task', async () => {
    const again = await forge(`/status/plans/${first.id}/apply`, USERS.ops.token);
    expect(again.status).toBe(409);
    const answer = await browser.context.newPage();
    await answer.setContent(again.text);
    expect(await answer.locator('h1').textContent()).toBe('Not done: it conflicts with how things are now');
    const api = (await ops.get(`/plans/${first.id}`)).body as Plan;
    expect(await answer.locator('[role=alert]').textContent()).toContain(api.applied?.id ?? 'no task');
    expect(await answer.locator('a[data-back]').getAttribute('href')).toBe(`/status/plans/${first.id}`);
    await answer.close();
  });

  it('refuses to apply a plan whose object was edited since, naming it, and writes nothing', async () => {
    const second = await plan(deployment('api', 'registry.example/api:2'));
    const seen = second.operations[0]?.objects[0]?.resourceVersion;
    await page.goto(`${cp.url}/status/plans/${second.id}`);
    // kubectl edit, as the API server sees it: an update of the object by another field manager.
    await cluster.request(
      'PATCH',
      `/apis/apps/v1/namespaces/${NS}/deployments/api?fieldManager=kubectl-edit`,
      {
        body: { metadata: { labels: { edited: 'by-hand' } } },
        contentType: 'application/merge-patch+json',
      },
    );
    await Promise.all([page.waitForEvent('load'), page.click('button[data-action="apply"]')]);
    expect(await page.locator('h1').textContent()).toBe('Not done: it conflicts with how things are now');
    const message = await page.locator('[role=alert]').textContent();
    expect(message).toContain('nothing was written');
    // The version now is the edit's, or a later one if the Deployment's controller wrote after it.
    expect(message).toMatch(
      new RegExp(`Deployment ${NS}/api: resourceVersion ${seen} when planned, \\d+ now`),
    );
    await screenshot(page, 'plan-refused');
    // Nothing of the plan was written: the image as it was, the edit kept.
    const live = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/api`);
    const body = live.json as {
      metadata: { labels: Record<string, string> };
      spec: { template: { spec: { containers: Array<{ image: string }> } } };
    };
    expect(body.spec.template.spec.containers[0]?.image).toBe('registry.example/api:1');
    expect(body.metadata.labels.edited).toBe('by-hand');
    expect((await ops.get(`/plans/${second.id}`)).body.state).toBe('planned');
    await Promise.all([page.waitForURL(`${cp.url}/status/plans/${second.id}`), page.click('a[data-back]')]);
    await eventually(async () => {
      expect(await page.locator('button[data-action="apply"]').count()).toBe(1);
    });
  });
});

/** A deployment of potato whose target waits for an approval before its deploy. */
function approvalFile(image: string): string {
  return `
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: canary
    constraints:
      beforeDeployment:
        - pause: {untilApproved: true}
strategies:
  canary:
    canary:
      steps:
        - setWeight: {weight: 50}
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}
`;
}

interface DeploymentAnswer {
  status: string;
  targets: Array<{ steps: Array<{ key: string; planId?: string }> }>;
}

describe('a deployment waiting for approval on the status page', () => {
  it('shows the plan approving applies beside Approve and Reject, links to it, and approving applies it', async () => {
    const submitted = await ops.post('/deployments', {
      file: approvalFile('potato:2'),
      fileName: 'potato.yaml',
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const id: string = submitted.body.id;
    let planId = '';
    await eventually(async () => {
      const answer = (await ops.get(`/deployments/${id}`)).body as DeploymentAnswer;
      planId = answer.targets[0]?.steps.find((s) => s.key === 'staging/beforeDeployment[0]')?.planId ?? '';
      expect(planId).not.toBe('');
    }, 60_000);
    const api = (await ops.get(`/plans/${planId}`)).body as Plan;
    const replicaSet = api.operations.flatMap((o) => o.objects).find((o) => o.kind === 'ReplicaSet');
    expect(replicaSet?.diff).toContainEqual(expect.objectContaining({ path: IMAGE_PATH, after: 'potato:2' }));

    await signIn(page, cp.url, USERS.ops.token, `/status/deployments/${id}`);
    const decision = page.locator('[data-approval="staging"]');
    const shown = decision.locator(`[data-plan="${planId}"]`);
    await shown.first().waitFor({ timeout: 15_000 });
    expect(await shown.locator('a').first().getAttribute('href')).toBe(`/status/plans/${planId}`);
    const row = shown.locator(
      `[data-object="ReplicaSet ${NS}/${replicaSet?.name}"] tr[data-path="${IMAGE_PATH}"]`,
    );
    // A new object: each path with its value, nothing before.
    expect((await row.locator('td').allTextContents()).map((t) => t.trim())).toEqual([
      IMAGE_PATH,
      'potato:2',
    ]);
    expect(await decision.locator('button[data-action="approve"]').count()).toBe(1);
    // The step itself links to its plan too, naming the step it plans.
    expect(words(await page.locator(`[data-step-plan="${planId}"]`).textContent())).toBe(
      `plan ${planId.slice(0, 8)} of staging/deploy`,
    );
    await screenshot(page, 'deployment-plan');

    await Promise.all([page.waitForEvent('load'), page.click('button[data-action="approve"]')]);
    await page.locator('[data-deployment-status="SUCCEEDED"]').waitFor({ timeout: 90_000 });
    expect(((await ops.get(`/deployments/${id}`)).body as DeploymentAnswer).status).toBe('SUCCEEDED');
    const live = await cluster.request(
      'GET',
      `/apis/apps/v1/namespaces/${NS}/replicasets/${replicaSet?.name}`,
    );
    expect(live.status).toBe(200);
  });
});

describe('drift on the application view', () => {
  /** A version cloudctl deployed: a ReplicaSet is versioned, so it carries the content hash drift is read by. */
  const key = `${ACCOUNT}/${NS}/replicaSet drifty-v000`;

  it('says, live, who changed which path of a deployed object; Re-apply opens the plan that undoes it', async () => {
    const replicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'drifty', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'drifty' } },
        template: {
          metadata: { labels: { app: 'drifty' } },
          spec: { containers: [{ name: 'web', image: 'registry.example/drifty:1' }] },
        },
      },
    };
    const started = await ops.post('/ops', [
      { deployManifest: { account: ACCOUNT, moniker: { app: 'drifty' }, manifests: [replicaSet] } },
    ]);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await taskDone(ops, started.body.id, 60_000)).status.failed).toBe(false);
    await eventually(async () => {
      expect((await ops.get('/applications/drifty/serverGroups')).body).toHaveLength(1);
    });
    await signIn(page, cp.url, USERS.ops.token, '/status/applications/drifty');
    await page.locator('#live-state[data-feed="open"]').waitFor();
    const row = page.locator(`tr[data-key="${key}"]`);
    expect(await row.count()).toBe(1);
    expect(await row.locator('[data-drift]').count()).toBe(0);
    // kubectl scale: a patch of the scale subresource by the field manager kubectl.
    const scaled = await cluster.request(
      'PATCH',
      `/apis/apps/v1/namespaces/${NS}/replicasets/drifty-v000/scale?fieldManager=kubectl`,
      { body: { spec: { replicas: 2 } }, contentType: 'application/merge-patch+json' },
    );
    expect(scaled.status, scaled.text).toBe(200);
    const note = row.locator('[data-drift="kubectl"]');
    await note.waitFor({ timeout: 60_000 });
    expect(words(await note.locator('li').first().textContent())).toMatch(
      // Kubernetes keeps no time for a write through the scale subresource.
      /^spec\.replicas changed by kubectl \(scale\) (.+ ago|\(when is not recorded\))$/,
    );
    await screenshot(page, 'application-drift');

    await note.locator('button[data-reapply]').click();
    expect(await page.locator('dialog#confirm .says').textContent()).toContain(
      'undoing the changes of kubectl (scale)',
    );
    await Promise.all([
      page.waitForURL(new RegExp(`^${cp.url}/status/plans/[^/]+$`), { timeout: 60_000 }),
      page.click('dialog#confirm button.confirm'),
    ]);
    const replicas = page.locator(
      `[data-object="ReplicaSet ${NS}/drifty-v000"] tr[data-path="spec.replicas"]`,
    );
    expect((await replicas.locator('td').allTextContents()).map((t) => t.trim())).toEqual([
      'spec.replicas',
      '~ changed',
      '2',
      '→',
      '1',
    ]);
    await screenshot(page, 'plan-reapply');
    await Promise.all([page.waitForEvent('load'), page.click('button[data-action="apply"]')]);
    await page.locator('[data-applied] [data-outcome="succeeded"]').waitFor({ timeout: 60_000 });
    const live = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets/drifty-v000`);
    expect((live.json as { spec: { replicas: number } }).spec.replicas).toBe(1);

    await page.goto(`${cp.url}/status/applications/drifty`);
    await eventually(async () => {
      await page.reload();
      expect(await page.locator(`tr[data-key="${key}"]`).count()).toBe(1);
      expect(await page.locator(`tr[data-key="${key}"] [data-drift]`).count()).toBe(0);
    }, 60_000);
  }, 240_000);
});
