// Blue/green and the webhook gates the first end-to-end test leaves out, with `cloudctl serve` and
// `orch-agent run` as processes on the shared real cluster, and a job-like receiver that calls back
// with an OAuth client-credentials token, as the spec's webhook job does: the parallel
// redirectTrafficAfter checks (both sent before either is answered), the Service switch, a timed
// shutdown pause and the old version removed; one check failing and the automatic rollback; a
// fire-and-forget afterDeployment webhook retried once, and one refused at its first 400; a target
// canceled because the one it depends on failed; a webhook sent through the agent (`httpRequest`),
// and one naming an agent that is not connected.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hashToken } from '../../../src/cloudctl/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type RunningProcess, startCloudctl, startProcess, waitReady } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { potatoManifests } from './potato-app.ts';
import { type ReceivedCall, WebhookReceiver } from './webhook-receiver.ts';

const NS = 'bg-e2e';
/** A second and third namespace of the same account, for targets beside the blue/green one. */
const NS_OTHER = 'bg-e2e-other';
const NS_LATER = 'bg-e2e-later';
const ACCOUNT = 'bg-e2e';
const AGENT_ID = 'bg-agent';
const TOKENS = { agent: 'agent-token-bg-3e9d', admin: 'admin-token-bg-77c2', ops: 'ops-token-bg-a51f' };

let dir: string;
let cluster: ClusterClient;
let cloudctl: RunningProcess;
let agent: RunningProcess;
let url: string;
let agentUrl: string;
let receiver: WebhookReceiver;
let admin: ApiClient;
let ops: ApiClient;
/** The webhook job's bearer token, from its client credentials (role ops: WRITE on the account). */
let jobToken: string;

/** The blue/green application: a Deployment of `image`, its active Service and its preview Service. */
function blueGreenManifests(image: string): string {
  return `${potatoManifests(image)}---
apiVersion: v1
kind: Service
metadata:
  name: potato-preview
spec:
  selector: {app: potato}
  ports:
    - port: 80
`;
}

/** A small Deployment named `name`, for targets that are not blue/green. */
function smallDeployment(name: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: web
          image: ${name}:1
`;
}

function inline(manifests: string, targets?: string[]): string {
  const only = targets === undefined ? '' : `    targets: [${targets.join(', ')}]\n`;
  return `  - inline: |\n${manifests.replace(/^(?=.)/gm, '      ')}${only}`;
}

/**
 * A webhook posting to the receiver at /hooks/<path>, with the callback URI in its body; with
 * `replicaSet`, the new ReplicaSet's name too (known from the deploy step on).
 */
function webhook(name: string, path: string, extra: string, replicaSet = false): string {
  const more = replicaSet ? ', "replicaSet": "{{vendor.replicaSetName}}"' : '';
  return `  - name: ${name}
    method: POST
    uriTemplate: ${receiver.url}/hooks/${path}
    headers:
      - {key: Content-Type, value: application/json}
    bodyTemplate:
      inline: '{"callbackUri": "{{vendor.callbackUri}}", "deploymentId": "{{vendor.deploymentId}}"${more}}'
${extra.replace(/^(?=.)/gm, '    ')}`;
}

/** Blue/green of `image` in NS: two parallel checks, then the switch, a 3 s pause, the old version removed. */
function blueGreenFile(image: string, options: { beforeGate?: boolean } = {}): string {
  return `
application: potato
targets:
  prod:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: blue-green
${options.beforeGate === true ? '    constraints:\n      beforeDeployment:\n        - runWebhook: {name: gate}\n' : ''}strategies:
  blue-green:
    blueGreen:
      activeService: potato
      previewService: potato-preview
      redirectTrafficAfter:
        - runWebhook: {name: smoke-tests}
        - runWebhook: {name: load-tests}
      shutDownOldVersionAfter:
        - pause: {duration: 3, unit: seconds}
webhooks:
${webhook('gate', 'gate', 'networkMode: direct')}
${webhook('smoke-tests', 'smoke', 'networkMode: direct', true)}
${webhook('load-tests', 'load', 'networkMode: direct', true)}
manifests:
${inline(blueGreenManifests(image))}`;
}

interface StepView {
  key: string;
  label: string;
  status: string;
  startedAt?: string;
  finishedAt?: string;
  message?: string;
  mdMessage?: string;
}

interface View {
  id: string;
  status: string;
  targets: Array<{
    name: string;
    status: string;
    message?: string;
    workloads?: Array<{ replicaSet: string; previous: Array<{ name: string }> }>;
    steps: StepView[];
  }>;
}

async function view(id: string): Promise<View> {
  const answer = await ops.get(`/deployments/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Polls the deployment until `done` holds for it. */
async function until(id: string, what: string, done: (v: View) => boolean): Promise<View> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await view(id);
    if (done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`deployment ${id}: ${what} not reached:\n${JSON.stringify(current, null, 2)}`);
    await sleep(100);
  }
}

function target(v: View, name = 'prod') {
  const found = v.targets.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no target ${name} in ${JSON.stringify(v.targets)}`);
  return found;
}

function step(v: View, key: string): StepView {
  const [name = ''] = key.split('/');
  const found = target(v, name).steps.find((s) => s.key === key);
  if (found === undefined) throw new Error(`no step ${key} in ${JSON.stringify(target(v, name).steps)}`);
  return found;
}

async function submit(file: string): Promise<string> {
  const answer = await ops.post('/deployments', { file, fileName: 'potato.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.id;
}

/** The next webhook request the receiver accepts; after 20 s, a failure that shows the deployment. */
async function nextCall(id: string, path?: string): Promise<ReceivedCall> {
  const deadline = Date.now() + 20_000;
  const next = receiver.next(receiver.calls.length);
  for (;;) {
    const call = await Promise.race([next, sleep(200).then(() => undefined)]);
    if (call !== undefined) {
      if (path !== undefined) expect(call.path).toBe(path);
      return call;
    }
    if (Date.now() > deadline)
      throw new Error(`no webhook request for ${id}:\n${JSON.stringify(await view(id), null, 2)}`);
  }
}

const replicaSetListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string(), labels: z.record(z.string(), z.string()).default({}) }),
      spec: z.object({ replicas: z.int() }),
    }),
  ),
});

/** ReplicaSet name → replicas, in `namespace` (all of it, or one workload's). */
async function replicaSets(namespace: string, workload?: string): Promise<Map<string, number>> {
  const selector = workload === undefined ? '' : `?labelSelector=deploy.vendor.io%2Fworkload%3D${workload}`;
  const list = await cluster.request('GET', `/apis/apps/v1/namespaces/${namespace}/replicasets${selector}`);
  return new Map(
    replicaSetListSchema.parse(list.json).items.map((rs) => [rs.metadata.name, rs.spec.replicas]),
  );
}

/** The version label of a ReplicaSet of NS: what a Service selecting it carries. */
async function versionOf(replicaSet: string): Promise<string | undefined> {
  const answer = await cluster.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets/${replicaSet}`);
  return replicaSetListSchema.shape.items.element.parse(answer.json).metadata.labels[
    'deploy.vendor.io/version'
  ];
}

const serviceSchema = z.object({ spec: z.object({ selector: z.record(z.string(), z.string()) }) });

/** The version a Service of NS selects. */
async function selectedVersion(service: string): Promise<string | undefined> {
  const answer = await cluster.request('GET', `/api/v1/namespaces/${NS}/services/${service}`);
  return serviceSchema.parse(answer.json).spec.selector['deploy.vendor.io/version'];
}

/** The token response of the spec; strict, so a field too many shows. */
const tokenResponseSchema = z.strictObject({
  access_token: z.string(),
  expires_in: z.int(),
  token_type: z.string(),
});

/** A job's token from its client credentials, by the form POST the spec gives. */
async function clientToken(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      audience: url,
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
}

const agentOperationsSchema = z.object({
  inFlight: z.array(z.object({ id: z.string(), type: z.string(), account: z.string() })),
  recent: z.array(
    z.object({ id: z.string(), type: z.string(), account: z.string(), outcome: z.string().optional() }),
  ),
});

async function agentOperations() {
  const answer = await fetch(`${agentUrl}/operations`);
  expect(answer.status).toBe(200);
  return agentOperationsSchema.parse(await answer.json());
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-blue-green-'));
  cluster = sharedClusterClient();
  receiver = await WebhookReceiver.start();
  for (const name of [NS, NS_OTHER, NS_LATER])
    await cluster.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
  const ports = { http: await freePort(), grpc: await freePort(), agentHealth: await freePort() };
  url = `http://127.0.0.1:${ports.http}`;
  agentUrl = `http://127.0.0.1:${ports.agentHealth}`;
  // TestSystem knows no administrators: cloudctl gets its own config, with auth.adminRoles.
  cloudctl = await startCloudctl(
    dir,
    'cloudctl.yaml',
    [
      `grpc:\n  host: 127.0.0.1\n  port: ${ports.grpc}`,
      `http:\n  host: 127.0.0.1\n  port: ${ports.http}`,
      `database:\n  dataDir: ${join(dir, 'cloudctl-data')}`,
      'auth:\n  adminRoles: [admins]',
      `agents:\n  - id: ${AGENT_ID}\n    tokenHash: ${hashToken(TOKENS.agent)}`,
      'users:',
      `  - name: ada\n    tokenHash: ${hashToken(TOKENS.admin)}\n    roles: [admins]`,
      `  - name: olga\n    tokenHash: ${hashToken(TOKENS.ops)}\n    roles: [ops]`,
      '',
    ].join('\n'),
    ports.http,
  );
  const agentConfig = join(dir, 'agent.yaml');
  await writeFile(
    agentConfig,
    [
      `cloudctl:\n  grpc: 127.0.0.1:${ports.grpc}\n  insecure: true\n  auth:\n    token: encrypted:env!n:TEST_AGENT_TOKEN`,
      `server:\n  host: 127.0.0.1\n  port: ${ports.agentHealth}`,
      'orchestrator:\n  accounts:',
      `    - name: ${ACCOUNT}`,
      `      orchConfigFile: ${sharedCluster().kubeconfigPath}`,
      `      namespaces: [${NS}, ${NS_OTHER}, ${NS_LATER}]`,
      '      kinds: [replicaSet, service]',
      '      permissions:\n        READ: [ops, dev]\n        WRITE: [ops]',
      'logging:\n  format: json',
      '',
    ].join('\n'),
  );
  agent = startProcess('orch-agent', ['run', '--config', agentConfig], {
    TEST_AGENT_TOKEN: TOKENS.agent,
    ORCH_AGENT_ID: AGENT_ID,
  });
  await waitReady(agent, `${agentUrl}/ready`);
  admin = apiClient(url, TOKENS.admin);
  ops = apiClient(url, TOKENS.ops);
}, 120_000);

afterAll(async () => {
  receiver?.release();
  await agent?.stop();
  await cloudctl?.stop();
  await receiver?.close();
  for (const name of [NS, NS_OTHER, NS_LATER]) await cluster?.request('DELETE', `/api/v1/namespaces/${name}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('blue/green and webhook gates', { timeout: 60_000 }, () => {
  let blue = '';

  it('takes a callback with a client-credentials token, refuses a client that may not write the account', async () => {
    // Only an administrator creates clients.
    expect((await ops.post('/oauth/clients', { name: 'sneaky', role: 'ops' })).status).toBe(403);
    const deployJob = await admin.post('/oauth/clients', { name: 'deploy webhook job', role: 'ops' });
    expect(deployJob.status).toBe(201);
    const readOnlyJob = await admin.post('/oauth/clients', { name: 'read-only job', role: 'dev' });
    expect(readOnlyJob.status).toBe(201);
    const tokenAnswer = await clientToken(deployJob.body.clientId, deployJob.body.clientSecret);
    expect(tokenAnswer.status).toBe(200);
    const token = tokenResponseSchema.parse(await tokenAnswer.json());
    expect(token).toEqual({ access_token: expect.any(String), expires_in: 3600, token_type: 'Bearer' });
    jobToken = token.access_token;
    const readOnlyToken = tokenResponseSchema.parse(
      await (await clientToken(readOnlyJob.body.clientId, readOnlyJob.body.clientSecret)).json(),
    ).access_token;
    expect((await clientToken(deployJob.body.clientId, 'not-the-secret')).status).toBe(401);

    // The first version, behind a gate: the blue/green checks are skipped (nothing to compare with).
    const id = await submit(blueGreenFile('potato:1', { beforeGate: true }));
    const gate = await nextCall(id, '/hooks/gate');
    expect(gate.body.deploymentId).toBe(id);
    await until(
      id,
      'the gate',
      (v) => step(v, 'prod/beforeDeployment[0]').message?.includes('waiting') === true,
    );
    const refused = await WebhookReceiver.callBack(gate, readOnlyToken, { success: true });
    expect(refused.status).toBe(403);
    expect((await view(id)).status).toBe('RUNNING');
    expect(await WebhookReceiver.callBack(gate, jobToken, { success: true, mdMessage: 'gate open' })).toEqual(
      {
        status: 200,
        body: { accepted: true, repeated: false },
      },
    );
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('SUCCEEDED');
    expect(step(done, 'prod/beforeDeployment[0]')).toMatchObject({
      status: 'SUCCEEDED',
      mdMessage: 'gate open',
    });
    for (const key of [
      'redirectTrafficAfter[0]',
      'redirectTrafficAfter[1]',
      'switchTraffic',
      'shutDownOldVersionAfter[0]',
      'removeOld',
    ])
      expect(step(done, `prod/${key}`).status).toBe('SKIPPED');
    blue = target(done).workloads?.[0]?.replicaSet ?? '';
    expect(await replicaSets(NS, 'potato')).toEqual(new Map([[blue, 2]]));
    const blueVersion = await versionOf(blue);
    expect(blueVersion).toEqual(expect.any(String));
    expect(await selectedVersion('potato')).toBe(blueVersion);
    expect(await selectedVersion('potato-preview')).toBe(blueVersion);
  });

  let green = '';

  it('runs the redirectTrafficAfter checks in parallel, switches the active Service, pauses, removes the old version', async () => {
    receiver.holding = true;
    const id = await submit(blueGreenFile('potato:2'));
    // Both checks are sent before either is answered: the receiver holds the two requests.
    const first = await nextCall(id);
    const second = await nextCall(id);
    expect(receiver.held).toBe(2);
    expect([first.path, second.path].sort()).toEqual(['/hooks/load', '/hooks/smoke']);
    const running = await view(id);
    const workload = target(running).workloads?.[0];
    green = workload?.replicaSet ?? '';
    expect(first.body.replicaSet).toBe(green);
    expect(step(running, 'prod/redirectTrafficAfter[0]').status).toBe('RUNNING');
    expect(step(running, 'prod/redirectTrafficAfter[1]').status).toBe('RUNNING');
    // Before the switch: the new version runs in full beside the old, the active Service selects the
    // old, the preview Service the new.
    expect(await replicaSets(NS, 'potato')).toEqual(
      new Map([
        [blue, 2],
        [green, 2],
      ]),
    );
    expect(workload?.previous.map((p) => p.name)).toEqual([blue]);
    const blueVersion = await versionOf(blue);
    const greenVersion = await versionOf(green);
    expect(greenVersion).not.toBe(blueVersion);
    expect(await selectedVersion('potato')).toBe(blueVersion);
    expect(await selectedVersion('potato-preview')).toBe(greenVersion);
    receiver.release();

    const smoke = first.path === '/hooks/smoke' ? first : second;
    const load = first.path === '/hooks/smoke' ? second : first;
    await until(
      id,
      'both waiting for callbacks',
      (v) =>
        step(v, 'prod/redirectTrafficAfter[0]').message?.includes('waiting') === true &&
        step(v, 'prod/redirectTrafficAfter[1]').message?.includes('waiting') === true,
    );
    expect((await WebhookReceiver.callBack(smoke, jobToken, { success: true })).status).toBe(200);
    // One check passed, the other still runs: no switch yet.
    const half = await until(
      id,
      'the smoke tests',
      (v) => step(v, 'prod/redirectTrafficAfter[0]').status === 'SUCCEEDED',
    );
    expect(step(half, 'prod/redirectTrafficAfter[1]').status).toBe('RUNNING');
    expect(step(half, 'prod/switchTraffic').status).toBe('PENDING');
    expect(await selectedVersion('potato')).toBe(blueVersion);
    expect((await WebhookReceiver.callBack(load, jobToken, { success: true })).status).toBe(200);

    // After the switch, during the shutdown pause: the active Service selects the new version, the old
    // one still runs.
    const pausing = await until(
      id,
      'the shutdown pause',
      (v) => step(v, 'prod/shutDownOldVersionAfter[0]').status === 'RUNNING',
    );
    expect(step(pausing, 'prod/switchTraffic').status).toBe('SUCCEEDED');
    expect(await selectedVersion('potato')).toBe(greenVersion);
    expect((await replicaSets(NS, 'potato')).get(blue)).toBe(2);

    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('SUCCEEDED');
    const pause = step(done, 'prod/shutDownOldVersionAfter[0]');
    expect(Date.parse(pause.finishedAt ?? '') - Date.parse(pause.startedAt ?? '')).toBeGreaterThanOrEqual(
      3000,
    );
    expect(step(done, 'prod/removeOld')).toMatchObject({
      status: 'SUCCEEDED',
      message: `scaled to 0: ${blue}`,
    });
    expect(await replicaSets(NS, 'potato')).toEqual(
      new Map([
        [blue, 0],
        [green, 2],
      ]),
    );
    expect(await selectedVersion('potato')).toBe(greenVersion);
  });

  it('rolls back automatically when one of the parallel checks answers success: false', async () => {
    const id = await submit(blueGreenFile('potato:3'));
    const first = await nextCall(id);
    const second = await nextCall(id);
    const smoke = first.path === '/hooks/smoke' ? first : second;
    const load = first.path === '/hooks/smoke' ? second : first;
    expect(load.path).toBe('/hooks/load');
    const waiting = await until(id, 'the checks', (v) =>
      [0, 1].every((i) => step(v, `prod/redirectTrafficAfter[${i}]`).message?.includes('waiting') === true),
    );
    const third = target(waiting).workloads?.[0]?.replicaSet ?? '';
    const greenVersion = await versionOf(green);
    expect(await selectedVersion('potato')).toBe(greenVersion);
    // The load tests are still running when the smoke tests fail: their outcome no longer matters.
    await WebhookReceiver.callBack(smoke, jobToken, { success: false, mdMessage: 'smoke tests failed' });
    const done = await until(id, 'the rollback', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('ROLLED_BACK');
    expect(target(done).status).toBe('ROLLED_BACK');
    expect(step(done, 'prod/redirectTrafficAfter[0]')).toMatchObject({
      status: 'FAILED',
      mdMessage: 'smoke tests failed',
    });
    // Nothing of a finished deployment is left running: the other check is no longer waited for.
    expect(step(done, 'prod/redirectTrafficAfter[1]')).toMatchObject({
      status: 'FAILED',
      message: 'not waited for any more: a step running beside it failed',
    });
    expect(target(done).steps.filter((s) => s.status === 'RUNNING' || s.status === 'PENDING')).toEqual([]);
    expect(step(done, 'prod/switchTraffic').status).toBe('SKIPPED');
    expect(step(done, 'prod/removeOld').status).toBe('SKIPPED');
    expect(await selectedVersion('potato')).toBe(greenVersion);
    const after = await replicaSets(NS, 'potato');
    expect(after.get(green)).toBe(2);
    expect(after.get(third)).toBe(0);
    // The late verdict of the check nobody waits for any more is refused, and changes nothing.
    expect((await WebhookReceiver.callBack(load, jobToken, { success: true })).status).toBe(409);
    expect((await view(id)).status).toBe('ROLLED_BACK');
  });

  it('goes on after a 2xx when disableCallback is set (a 500 retried once), fails at once on a 400 with retryCount 0', async () => {
    const file = `
application: chips
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS_OTHER}
    strategy: whole
    constraints:
      afterDeployment:
        - runWebhook: {name: notify}
        - runWebhook: {name: strict}
strategies:
  whole:
    canary:
      steps:
        - setWeight: {weight: 50}
webhooks:
${webhook('notify', 'notify', 'networkMode: direct\nretryCount: 1\ndisableCallback: true')}
${webhook('strict', 'strict', 'networkMode: direct\nretryCount: 0\ndisableCallback: true')}
manifests:
${inline(smallDeployment('chips'))}`;
    const before = receiver.requests.length;
    receiver.failFirst.push(500, 200, 400);
    const id = await submit(file);
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(receiver.requests.slice(before)).toEqual([
      { path: '/hooks/notify', status: 500 },
      { path: '/hooks/notify', status: 200 },
      { path: '/hooks/strict', status: 400 },
    ]);
    expect(step(done, 'staging/afterDeployment[0]')).toMatchObject({
      status: 'SUCCEEDED',
      message: 'answered 200; no callback awaited (disableCallback)',
    });
    const strict = step(done, 'staging/afterDeployment[1]');
    expect(strict.status).toBe('FAILED');
    expect(strict.message).toMatch(/webhook strict: .*answered 400 \(attempt 1 of 1; not retried\)/);
    // A failure after the deployment fails the target and leaves the new version in place.
    expect(done.status).toBe('FAILED');
    expect(target(done, 'staging')).toMatchObject({ status: 'FAILED', message: strict.message });
    const chips = target(done, 'staging').workloads?.[0]?.replicaSet ?? '';
    expect(await replicaSets(NS_OTHER, 'chips')).toEqual(new Map([[chips, 1]]));
  });

  it('cancels a target whose dependency fails at its beforeDeployment webhook; it deploys nothing', async () => {
    const file = `
application: fries
targets:
  first:
    account: ${ACCOUNT}
    namespace: ${NS_OTHER}
    strategy: whole
    constraints:
      beforeDeployment:
        - runWebhook: {name: gate}
  second:
    account: ${ACCOUNT}
    namespace: ${NS_LATER}
    strategy: whole
    constraints:
      dependsOn: [first]
      beforeDeployment:
        - runWebhook: {name: gate}
strategies:
  whole:
    canary:
      steps:
        - setWeight: {weight: 50}
webhooks:
${webhook('gate', 'fries-gate', 'networkMode: direct')}
manifests:
${inline(smallDeployment('fries'))}`;
    const before = receiver.requests.length;
    const id = await submit(file);
    const gate = await nextCall(id, '/hooks/fries-gate');
    await until(
      id,
      'the gate',
      (v) => step(v, 'first/beforeDeployment[0]').message?.includes('waiting') === true,
    );
    expect(target(await view(id), 'second').status).toBe('PENDING');
    await WebhookReceiver.callBack(gate, jobToken, { success: false, mdMessage: 'change freeze' });
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('FAILED');
    expect(target(done, 'first')).toMatchObject({
      status: 'FAILED',
      message: 'webhook gate: the job answered success: false (change freeze)',
    });
    expect(step(done, 'first/deploy').status).toBe('SKIPPED');
    expect(target(done, 'second')).toMatchObject({
      status: 'CANCELED',
      message: 'not deployed: first did not succeed',
    });
    expect(target(done, 'second').steps.map((s) => s.status)).toEqual(
      target(done, 'second').steps.map(() => 'SKIPPED'),
    );
    // The second target's gate was never sent, and neither namespace got a ReplicaSet of fries.
    expect(receiver.requests.slice(before)).toEqual([{ path: '/hooks/fries-gate', status: 200 }]);
    expect(await replicaSets(NS_LATER)).toEqual(new Map());
    expect(await replicaSets(NS_OTHER, 'fries')).toEqual(new Map());
  });

  it('sends a remoteNetworkAgent webhook through the agent, and fails one naming an agent that is not connected', async () => {
    const file = `
application: mash
targets:
  remote:
    account: ${ACCOUNT}
    namespace: ${NS_LATER}
    strategy: whole
    constraints:
      beforeDeployment:
        - runWebhook: {name: through-agent}
        - runWebhook: {name: through-ghost}
strategies:
  whole:
    canary:
      steps:
        - setWeight: {weight: 50}
webhooks:
${webhook('through-agent', 'remote', 'networkMode: remoteNetworkAgent\ndisableCallback: true')}
${webhook('through-ghost', 'ghost', 'networkMode: remoteNetworkAgent\nagentIdentifier: no-such-agent\ndisableCallback: true')}
manifests:
${inline(smallDeployment('mash'))}`;
    const before = receiver.requests.length;
    receiver.holding = true;
    const id = await submit(file);
    const call = await nextCall(id, '/hooks/remote');
    expect(call.body.deploymentId).toBe(id);
    // While the receiver holds the request, the agent has an httpRequest operation in flight: it is the
    // agent that sent it, not cloudctl.
    const inFlight = (await agentOperations()).inFlight.filter((o) => o.type === 'httpRequest');
    expect(inFlight).toEqual([{ id: expect.any(String), type: 'httpRequest', account: ACCOUNT }]);
    receiver.release();
    const done = await until(id, 'the end', (v) => v.status !== 'RUNNING');
    expect((await agentOperations()).recent).toContainEqual(
      expect.objectContaining({ id: inFlight[0]?.id, type: 'httpRequest', outcome: 'succeeded' }),
    );
    expect(step(done, 'remote/beforeDeployment[0]')).toMatchObject({
      status: 'SUCCEEDED',
      message: 'answered 200; no callback awaited (disableCallback)',
    });
    const ghost = step(done, 'remote/beforeDeployment[1]');
    expect(ghost.status).toBe('FAILED');
    expect(ghost.message).toMatch(/agent no-such-agent \(agentIdentifier\) is not connected/);
    expect(target(done, 'remote')).toMatchObject({ status: 'FAILED', message: ghost.message });
    expect(receiver.requests.slice(before)).toEqual([{ path: '/hooks/remote', status: 200 }]);
    expect(await replicaSets(NS_LATER, 'mash')).toEqual(new Map());
  });
});
