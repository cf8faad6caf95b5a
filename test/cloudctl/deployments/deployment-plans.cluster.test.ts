// Plans in the deployment service, end to end: `cloudctl serve` and `orch-agent run` as processes, the
// shared real cluster, and the webhook receiver standing in for a job. A deployment file planned with
// POST /deployments/plans changes nothing and its apply starts exactly the planned deployment; an
// approval shows the plan of the deploy after it (the image path in its diff) and approving applies
// exactly that plan; an object edited between plan and approval fails the deploy naming it, writing
// nothing; a webhook gets {{vendor.planUri}}, which answers the plan.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { potatoManifests } from './potato-app.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

const NS = 'deploy-plans';
const ACCOUNT = 'deploy-plans';
const IMAGE_PATH = 'spec.template.spec.containers[0].image';
/** Plans expire soon here, so an approval's plan is seen to expire and be made again. */
const PLAN_EXPIRY_SECONDS = 40;
const TOKENS = { agent: 'agent-token-plans-3e9d', ops: 'ops-token-plans-7a21', dev: 'dev-token-plans-c45b' };

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let receiver: WebhookReceiver;
let ops: ApiClient;
let dev: ApiClient;

/** A file whose target passes `gate` (none, an approval, or the receiver's webhook) before its deploy. */
function deploymentFile(image: string, gate: 'none' | 'approval' | 'webhook'): string {
  const before = {
    none: '',
    approval: '      beforeDeployment:\n        - pause: {untilApproved: true}\n',
    webhook: '      beforeDeployment:\n        - runWebhook: {name: check}\n',
  }[gate];
  return `
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: canary
${before === '' ? '' : `    constraints:\n${before}`}strategies:
  canary:
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
      inline: '{"callbackUri": "{{vendor.callbackUri}}", "planUri": "{{vendor.planUri}}"}'
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}
`;
}

const planSchema = z.looseObject({
  id: z.string(),
  source: z.string(),
  state: z.string(),
  operations: z.array(
    z.looseObject({
      name: z.string(),
      objects: z.array(
        z.looseObject({
          kind: z.string(),
          name: z.string(),
          action: z.string(),
          resourceVersion: z.string().nullable(),
          diff: z.array(
            z.looseObject({
              path: z.string(),
              before: z.unknown().optional(),
              after: z.unknown().optional(),
            }),
          ),
        }),
      ),
    }),
  ),
  applyUri: z.string(),
});
type Plan = z.infer<typeof planSchema>;

/** The planned object of that kind. */
function planned(plan: Plan, kind: string) {
  const found = plan.operations.flatMap((o) => o.objects).find((o) => o.kind === kind);
  if (found === undefined) throw new Error(`no ${kind} in the plan: ${JSON.stringify(plan)}`);
  return found;
}

interface View {
  id: string;
  status: string;
  targets: Array<{
    status: string;
    message?: string;
    steps: Array<{ key: string; status: string; message?: string; planId?: string; planUri?: string }>;
  }>;
}

async function view(id: string): Promise<View> {
  const answer = await ops.get(`/deployments/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function until(id: string, what: string, done: (v: View) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await view(id);
    if (done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`deployment ${id}: ${what} not reached:\n${JSON.stringify(current, null, 2)}`);
    await sleep(250);
  }
}

function step(v: View, key: string) {
  const found = v.targets[0]?.steps.find((s) => s.key === `staging/${key}`);
  if (found === undefined) throw new Error(`no step ${key} in ${JSON.stringify(v.targets[0]?.steps)}`);
  return found;
}

const listSchema = z.object({ items: z.array(z.object({ metadata: z.object({ name: z.string() }) })) });

/** The names of potato's versions (ReplicaSets) in the cluster. */
async function versions(): Promise<string[]> {
  const list = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets`);
  return listSchema
    .parse(list.json)
    .items.map((rs) => rs.metadata.name)
    .sort();
}

async function submit(file: string): Promise<string> {
  const answer = await ops.post('/deployments', { file, fileName: 'potato.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.id;
}

/** The plan an approval or webhook step shows, read at its planUri. */
async function planOfStep(id: string, key: string): Promise<Plan> {
  const waiting = await until(id, `${key} planned`, (v) => step(v, key).planId !== undefined);
  const uri = step(waiting, key).planUri ?? '';
  expect(uri).toBe(`/plans/${step(waiting, key).planId}`);
  const answer = await ops.get(uri);
  expect(answer.status).toBe(200);
  return planSchema.parse(answer.body);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-deploy-plans-'));
  cluster = sharedClusterClient();
  receiver = await WebhookReceiver.start();
  system = await TestSystem.startCloudctl({
    dir,
    config: `plans:\n  expireAfterSeconds: ${PLAN_EXPIRY_SECONDS}\n`,
    agent: { id: 'plans-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['replicaSet', 'service'],
      read: ['dev'],
      write: ['ops'],
    },
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
  dev = apiClient(system.url, TOKENS.dev);
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('plans in the deployment service', () => {
  it('plans a deployment file without changing anything; applying the plan starts exactly it', async () => {
    const file = deploymentFile('potato:1', 'none');
    // Planning needs READ, as POST /plans does: dave (read only) may plan, not apply.
    const answer = await dev.post('/deployments/plans', { file, fileName: 'potato.yaml' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const plan = planSchema.parse(answer.body);
    expect(plan).toMatchObject({ source: 'deployment', state: 'planned' });
    const replicaSet = planned(plan, 'ReplicaSet');
    expect(replicaSet).toMatchObject({ action: 'create', resourceVersion: null });
    expect(replicaSet.diff).toContainEqual(expect.objectContaining({ path: IMAGE_PATH, after: 'potato:1' }));
    expect(planned(plan, 'Service')).toMatchObject({ action: 'create', resourceVersion: null });
    // Nothing was written, nothing started.
    expect(await versions()).toEqual([]);
    expect((await cluster.request('GET', `/api/v1/namespaces/${NS}/services/potato`)).status).toBe(404);
    expect((await ops.get('/deployments')).body).toEqual([]);

    expect((await dev.post(plan.applyUri)).status).toBe(403);
    const applied = await ops.post(plan.applyUri);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const id: string = applied.body.id;
    expect(applied.body.resourceUri).toBe(`/deployments/${id}`);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done)).toBe('SUCCEEDED');
    // The version the plan showed is the one deployed: its name carries the deployment's id.
    expect(await versions()).toEqual([replicaSet.name]);
    const again = await ops.post(plan.applyUri);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(`/deployments/${id}`);
  });

  it("shows the deploy's plan at an approval, the image path in its diff; approving applies exactly it", async () => {
    const id = await submit(deploymentFile('potato:2', 'approval'));
    const plan = await planOfStep(id, 'beforeDeployment[0]');
    const replicaSet = planned(plan, 'ReplicaSet');
    expect(replicaSet.action).toBe('create');
    expect(replicaSet.diff).toContainEqual(expect.objectContaining({ path: IMAGE_PATH, after: 'potato:2' }));
    expect(planned(plan, 'Service').action).toBe('update');
    // Nothing is written while the approval waits.
    expect(await versions()).not.toContain(replicaSet.name);
    // A gate's plan is applied by deciding the gate, not through /plans.
    const direct = await ops.post(plan.applyUri);
    expect(direct.status).toBe(409);
    expect(direct.body.message).toContain(`POST /deployments/${id}/approve`);

    expect((await ops.post(`/deployments/${id}/approve`, {})).status).toBe(200);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done)).toBe('SUCCEEDED');
    expect(step(done, 'beforeDeployment[0]').message).toContain(`(plan ${plan.id})`);
    expect(await versions()).toContain(replicaSet.name);
    // The plan now reads applied, by this deployment, and cannot be applied again.
    const after = (await ops.get(`/plans/${plan.id}`)).body;
    expect(after.state).toBe('applied');
    expect(after.applied).toMatchObject({ id, resourceUri: `/deployments/${id}` });
  });

  it('fails the deploy, naming the object and writing nothing, when a planned object was edited before approval', async () => {
    const before = await versions();
    const id = await submit(deploymentFile('potato:3', 'approval'));
    const plan = await planOfStep(id, 'beforeDeployment[0]');
    const service = planned(plan, 'Service');
    expect(service.action).toBe('update');
    // What `kubectl edit` sends: a patch by another client, between the plan and the approval.
    const edit = await cluster.request('PATCH', `/api/v1/namespaces/${NS}/services/potato`, {
      body: { metadata: { labels: { 'edited-by': 'someone' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(edit.status, edit.text).toBe(200);

    expect((await ops.post(`/deployments/${id}/approve`, {})).status).toBe(200);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('FAILED');
    const deploy = step(done, 'deploy');
    expect(deploy.status).toBe('FAILED');
    expect(deploy.message).toContain('PRECONDITION_FAILED');
    expect(deploy.message).toContain(`Service ${NS}/potato`);
    // Nothing of the deploy was written: no new version, the Service as edited.
    expect(await versions()).toEqual(before);
    const live = await cluster.request('GET', `/api/v1/namespaces/${NS}/services/potato`);
    const metadata = z
      .object({ metadata: z.object({ annotations: z.record(z.string(), z.string()) }) })
      .parse(live.json).metadata;
    expect(metadata.annotations['deploy.vendor.io/deployment-id']).not.toBe(id);
  });

  it('sends a webhook {{vendor.planUri}}, which answers the plan of the deploy the callback lets through', async () => {
    const id = await submit(deploymentFile('potato:4', 'webhook'));
    const call = await receiver.next(0);
    const planUri = call.body.planUri ?? '';
    expect(planUri).toMatch(new RegExp(`^${system.url}/plans/[0-9a-f-]{36}$`));
    const read = await ops.get(planUri.slice(system.url.length));
    expect(read.status).toBe(200);
    const plan = planSchema.parse(read.body);
    expect(plan.id).toBe(step(await view(id), 'beforeDeployment[0]').planId);
    const replicaSet = planned(plan, 'ReplicaSet');
    expect(replicaSet.diff).toContainEqual(expect.objectContaining({ path: IMAGE_PATH, after: 'potato:4' }));

    expect((await WebhookReceiver.callBack(call, TOKENS.ops, { success: true })).status).toBe(200);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done)).toBe('SUCCEEDED');
    expect(await versions()).toContain(replicaSet.name);
  });

  it("makes an approval's plan again when it expires while the approval waits; approving applies the new one", async () => {
    const id = await submit(deploymentFile('potato:5', 'approval'));
    const first = await planOfStep(id, 'beforeDeployment[0]');
    const renewed = await until(
      id,
      'a new plan after the first expired',
      (v) => {
        const gate = step(v, 'beforeDeployment[0]');
        return gate.planId !== undefined && gate.planId !== first.id;
      },
      (PLAN_EXPIRY_SECONDS + 60) * 1000,
    );
    const gate = step(renewed, 'beforeDeployment[0]');
    expect(gate.status).toBe('RUNNING');
    expect((await ops.get(`/plans/${first.id}`)).body.state).toBe('expired');
    const current = planSchema.parse((await ops.get(gate.planUri ?? '')).body);
    expect(current.state).toBe('planned');
    const replicaSet = planned(current, 'ReplicaSet');
    expect(replicaSet.name).toBe(planned(first, 'ReplicaSet').name);

    expect((await ops.post(`/deployments/${id}/approve`, {})).status).toBe(200);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status, JSON.stringify(done)).toBe('SUCCEEDED');
    expect(step(done, 'beforeDeployment[0]').message).toContain(`(plan ${current.id})`);
    expect(await versions()).toContain(replicaSet.name);
  }, 180_000);
});
