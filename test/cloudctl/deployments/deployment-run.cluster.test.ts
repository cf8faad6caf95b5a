// The deployment service end to end: `cloudctl serve` and `orch-agent run` as processes, the shared
// real cluster, and a webhook receiver that behaves like an external job (it reads the callback URI
// from the request and calls back with a bearer token). A first version rolls out in full behind a
// beforeDeployment webhook and an afterDeployment approval; a second version's canary gate fails and
// rolls back automatically; a third waits at its canary gate while cloudctl is SIGKILLed, and the
// callback still works after the restart.
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { type RunningProcess, startProcess, TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { potatoManifests } from './potato-app.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

const NS = 'deploy-e2e';
const ACCOUNT = 'deploy-e2e';
const TOKENS = {
  agent: 'agent-token-deploy-5c1e',
  ops: 'ops-token-deploy-91a4',
  releaseManager: 'rm-token-deploy-0b7d',
  dev: 'dev-token-deploy-6f2a',
};

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let receiver: WebhookReceiver;
let ops: ApiClient;
let releaseManager: ApiClient;
let dev: ApiClient;
let received = 0;

interface FileOptions {
  /** An afterDeployment approval by release-managers (default true). */
  approval?: boolean;
  /** `path`: the manifests in manifests/ beside the file, for `cloudctl deploy -f` to inline. */
  manifests?: 'inline' | 'path';
}

function deploymentFile(image: string, canaryVerdictPath: string, options: FileOptions = {}): string {
  const approval = options.approval ?? true;
  const manifests =
    options.manifests === 'path'
      ? '  - path: manifests'
      : `  - inline: |\n${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
  return `
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: gated-canary
    constraints:
      beforeDeployment:
        - runWebhook:
            name: gate
            context: {stage: before}
${
  approval
    ? `      afterDeployment:
        - pause:
            untilApproved: true
            requiresRoles: [release-managers]
`
    : ''
}strategies:
  gated-canary:
    canary:
      steps:
        - setWeight: {weight: 50}
        - runWebhook:
            name: gate
            context: {stage: ${canaryVerdictPath}}
webhooks:
  - name: gate
    method: POST
    uriTemplate: ${receiver.url}/hooks/{{context.stage}}
    networkMode: direct
    retryCount: 2
    headers:
      - {key: Content-Type, value: application/json}
    bodyTemplate:
      inline: >-
        {"callbackUri": "{{vendor.callbackUri}}", "deploymentId": "{{vendor.deploymentId}}",
        "environment": "{{vendor.environmentName}}", "namespace": "{{vendor.namespace}}",
        "account": "{{vendor.accountName}}", "application": "{{vendor.applicationName}}"}
manifests:
${manifests}
`;
}

interface View {
  id: string;
  status: string;
  targets: Array<{
    status: string;
    message?: string;
    workloads?: Array<{ replicaSet: string; previous: Array<{ name: string; replicas: number }> }>;
    steps: Array<{ key: string; label: string; status: string; message?: string; mdMessage?: string }>;
  }>;
  log: Array<{ message: string }>;
}

async function view(id: string): Promise<View> {
  const answer = await ops.get(`/deployments/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Polls the deployment until `done` holds for it. */
async function until(
  id: string,
  what: string,
  done: (v: View) => boolean,
  timeoutMs = 60_000,
): Promise<View> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await view(id).catch(() => undefined);
    if (current !== undefined && done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`deployment ${id}: ${what} not reached:\n${JSON.stringify(current, null, 2)}`);
    await sleep(200);
  }
}

function step(v: View, key: string) {
  const found = v.targets[0]?.steps.find((s) => s.key === key);
  if (found === undefined) throw new Error(`no step ${key} in ${JSON.stringify(v.targets[0]?.steps)}`);
  return found;
}

const replicaSetListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string(), annotations: z.record(z.string(), z.string()).default({}) }),
      spec: z.object({
        replicas: z.int(),
        template: z.object({
          spec: z.object({
            containers: z.array(
              z.object({ env: z.array(z.object({ name: z.string(), value: z.string() })).default([]) }),
            ),
          }),
        }),
      }),
    }),
  ),
});
type ReplicaSet = z.infer<typeof replicaSetListSchema>['items'][number];

async function replicaSets(): Promise<Map<string, { replicas: number; object: ReplicaSet }>> {
  const list = await cluster.request(
    'GET',
    `/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=deploy.vendor.io%2Fworkload%3Dpotato`,
  );
  const { items } = replicaSetListSchema.parse(list.json);
  return new Map(items.map((rs) => [rs.metadata.name, { replicas: rs.spec.replicas, object: rs }]));
}

/** The exit status of a command run to its end (killed after `timeoutMs`). */
async function exitOf(command: RunningProcess, timeoutMs: number): Promise<number | null> {
  const { child } = command;
  if (child.exitCode !== null) return child.exitCode;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return code;
}

async function submit(file: string) {
  const answer = await ops.post('/deployments', { file, fileName: 'potato.yaml' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return answer.body.id as string;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-deploy-e2e-'));
  cluster = sharedClusterClient();
  receiver = await WebhookReceiver.start();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'deploy-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'rita', token: TOKENS.releaseManager, roles: ['ops', 'release-managers'] },
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
  releaseManager = apiClient(system.url, TOKENS.releaseManager);
  dev = apiClient(system.url, TOKENS.dev);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('deployments with webhook gates, approvals and canaries', () => {
  let firstVersion = '';

  it('refuses a bad file with every problem located, and a user without WRITE', async () => {
    const bad = await ops.post('/deployments', {
      file: 'application: potato\ntargets:\n  staging: {account: nowhere, strategy: missing}\n',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/request body:3:\d+: error: targets\.staging\.strategy/);
    expect(bad.body.message).toMatch(/manifests/);
    const refused = await dev.post('/deployments', { file: deploymentFile('potato:1', 'pass') });
    expect(refused.status).toBe(403);
    expect((await ops.get('/deployments')).body).toEqual([]);
  });

  it('rolls out a first version in full behind a webhook and an approval by the required role', async () => {
    receiver.failFirst.push(503);
    const id = await submit(deploymentFile('potato:1', 'pass'));
    const before = await receiver.next(received++);
    expect(before.path).toBe('/hooks/before');
    expect(before.body).toMatchObject({
      deploymentId: id,
      environment: 'staging',
      namespace: NS,
      account: ACCOUNT,
      application: 'potato',
    });
    expect(before.body.callbackUri).toMatch(
      new RegExp(`^${system.url}/deployments/callbacks/[A-Za-z0-9_-]{32}$`),
    );
    // The 503 was retried (retryCount: 2): the job got the request on the second attempt.
    expect(receiver.failFirst).toEqual([]);
    await until(
      id,
      'waiting for the callback',
      (v) => step(v, 'staging/beforeDeployment[0]').message?.includes('waiting') === true,
    );

    // Only a user who may change the account can call back.
    expect((await WebhookReceiver.callBack(before, TOKENS.dev, { success: true })).status).toBe(403);
    expect((await WebhookReceiver.callBack(before, 'wrong-token', { success: true })).status).toBe(401);
    const accepted = await WebhookReceiver.callBack(before, TOKENS.ops, {
      success: true,
      mdMessage: 'checks **passed**',
    });
    expect(accepted).toEqual({ status: 200, body: { accepted: true, repeated: false } });

    const waiting = await until(
      id,
      'the approval',
      (v) => step(v, 'staging/afterDeployment[0]').status === 'RUNNING',
    );
    expect(step(waiting, 'staging/beforeDeployment[0]')).toMatchObject({
      status: 'SUCCEEDED',
      mdMessage: 'checks **passed**',
    });
    // A first version has nothing to compare with: the canary steps are skipped, the version is whole.
    expect(step(waiting, 'staging/canary[0]').status).toBe('SKIPPED');
    expect(step(waiting, 'staging/canary[1]').status).toBe('SKIPPED');
    const rs = await replicaSets();
    expect(rs.size).toBe(1);
    const [name = '', first] = [...rs.entries()][0] ?? [];
    firstVersion = name;
    expect(first?.replicas).toBe(2);
    expect(first?.object.metadata.annotations).toMatchObject({
      'deploy.vendor.io/application': 'potato',
      'deploy.vendor.io/deployment-id': id,
      'deploy.vendor.io/environment': 'staging',
      'deploy.vendor.io/replica-set-name': name,
    });
    const env = first?.object.spec.template.spec.containers[0]?.env;
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'VENDOR_APPLICATION_NAME', value: 'potato' },
        { name: 'VENDOR_DEPLOYMENT_ID', value: id },
        { name: 'VENDOR_ENVIRONMENT_NAME', value: 'staging' },
        { name: 'VENDOR_REPLICA_SET_NAME', value: name },
      ]),
    );
    const service = await cluster.request('GET', `/api/v1/namespaces/${NS}/services/potato`);
    expect(service.json).toMatchObject({
      metadata: { annotations: { 'deploy.vendor.io/deployment-id': id } },
    });

    // A second run of the application on the same place waits its turn.
    const second = await ops.post('/deployments', { file: deploymentFile('potato:9', 'pass') });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain(`deployment ${id} of potato still runs`);

    // The pause needs release-managers: olga (ops) may not approve it, rita may.
    const notAllowed = await ops.post(`/deployments/${id}/approve`, {});
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body.message).toMatch(/release-managers/);
    expect((await releaseManager.post(`/deployments/${id}/approve`, { message: 'go' })).status).toBe(200);
    const done = await until(id, 'success', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('SUCCEEDED');
    expect(step(done, 'staging/afterDeployment[0]').message).toBe('approved by rita: go');
    // A repeat of the verdict is answered 200; a conflicting one 409.
    expect(await WebhookReceiver.callBack(before, TOKENS.ops, { success: true })).toEqual({
      status: 200,
      body: { accepted: true, repeated: true },
    });
    expect((await WebhookReceiver.callBack(before, TOKENS.ops, { success: false })).status).toBe(409);
    expect((await dev.get(`/deployments/${id}`)).status).toBe(200);
    expect((await dev.get('/deployments')).body.map((d: { id: string }) => d.id)).toEqual([id]);
  });

  it('rolls a canary back automatically when its webhook answers success: false', async () => {
    const id = await submit(deploymentFile('potato:2', 'canary'));
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, { success: true });
    const canary = await receiver.next(received++);
    expect(canary.path).toBe('/hooks/canary');
    // At the gate the new version has half the replicas, the previous one the other half.
    const during = await replicaSets();
    const second = [...during.keys()].find((n) => n !== firstVersion) ?? '';
    expect(during.get(second)?.replicas).toBe(1);
    expect(during.get(firstVersion)?.replicas).toBe(1);
    await WebhookReceiver.callBack(canary, TOKENS.ops, { success: false, mdMessage: 'smoke tests failed' });
    const done = await until(id, 'the rollback', (v) => v.status !== 'RUNNING');
    expect(done.status).toBe('ROLLED_BACK');
    expect(done.targets[0]?.status).toBe('ROLLED_BACK');
    expect(step(done, 'staging/canary[1]')).toMatchObject({
      status: 'FAILED',
      mdMessage: 'smoke tests failed',
    });
    expect(step(done, 'staging/promote').status).toBe('SKIPPED');
    expect(step(done, 'staging/afterDeployment[0]').status).toBe('SKIPPED');
    const after = await replicaSets();
    expect(after.get(firstVersion)?.replicas).toBe(2);
    expect(after.get(second)?.replicas).toBe(0);
  });

  it('keeps waiting for a callback across a SIGKILL of cloudctl, then promotes the canary', async () => {
    const id = await submit(deploymentFile('potato:3', 'canary'));
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, { success: true });
    const canary = await receiver.next(received++);
    await until(
      id,
      'the canary gate',
      (v) => step(v, 'staging/canary[1]').message?.includes('waiting') === true,
    );
    await system.killCloudctl();
    await system.serveCloudctl();
    // The same callback URI works after the restart, and no second request went out.
    const answer = await WebhookReceiver.callBack(canary, TOKENS.ops, {
      success: true,
      mdMessage: 'all green',
    });
    expect(answer.status).toBe(200);
    const approving = await until(
      id,
      'the approval',
      (v) => step(v, 'staging/afterDeployment[0]').status === 'RUNNING',
    );
    expect(receiver.calls.length).toBe(received);
    expect(step(approving, 'staging/promote').status).toBe('SUCCEEDED');
    const third = approving.targets[0]?.workloads?.[0]?.replicaSet ?? '';
    const rs = await replicaSets();
    expect(rs.get(third)?.replicas).toBe(2);
    expect(rs.get(firstVersion)?.replicas).toBe(0);
    // Rejected: the target fails and the rollback is left to the user, who asks for it.
    expect((await releaseManager.post(`/deployments/${id}/reject`, { message: 'not today' })).status).toBe(
      200,
    );
    const rejected = await until(id, 'the rejection', (v) => v.status !== 'RUNNING');
    expect(rejected.status).toBe('FAILED');
    expect(rejected.targets[0]?.message).toBe('rejected by rita: not today');
    expect((await replicaSets()).get(third)?.replicas).toBe(2);
    expect((await ops.post(`/deployments/${id}/rollback`)).status).toBe(202);
    const rolledBack = await until(id, 'the asked rollback', (v) => v.status !== 'RUNNING');
    expect(rolledBack.status).toBe('ROLLED_BACK');
    const restored = await replicaSets();
    expect(restored.get(firstVersion)?.replicas).toBe(2);
    expect(restored.get(third)?.replicas).toBe(0);
  });

  it("shows the workload's versions as one cluster, in sequence, and previous targets find the one before", async () => {
    // Three runs so far (potato:1, the rolled-back potato:2, potato:3): three versions of `potato`.
    const versions = [...(await replicaSets()).values()].map((rs) => rs.object);
    const bySequence = versions
      .map((rs) => ({
        name: rs.metadata.name,
        sequence: Number(rs.metadata.annotations['moniker.spinnaker.io/sequence']),
      }))
      .sort((a, b) => a.sequence - b.sequence);
    expect(bySequence.map((v) => v.sequence)).toEqual([0, 1, 2]);
    expect(bySequence[0]?.name).toBe(firstVersion);
    const cluster = `/applications/potato/clusters/${ACCOUNT}/replicaSet%20potato`;
    // The read model follows the cluster through the agent's watch: wait until it has all three.
    await expect
      .poll(async () => (await ops.get(cluster)).body?.[0]?.serverGroups?.length, { timeout: 20_000 })
      .toBe(3);
    const answer = await ops.get(cluster);
    expect(answer.body).toHaveLength(1);
    const sequences = answer.body[0].serverGroups.map(
      (sg: { moniker: { sequence: number } }) => sg.moniker.sequence,
    );
    expect(sequences.sort()).toEqual([0, 1, 2]);
    const target = (name: string) =>
      ops.get(`${cluster}/orchestrator/${NS}/serverGroups/target/${name}`).then((r) => r.body.name);
    expect(await target('current_asg_dynamic')).toBe(`replicaSet ${bySequence[2]?.name}`);
    expect(await target('ancestor_asg_dynamic')).toBe(`replicaSet ${bySequence[1]?.name}`);
    expect(await target('oldest_asg_dynamic')).toBe(`replicaSet ${firstVersion}`);
  });

  it('fails a step whose callback or approval does not come in time, and refuses the late callback', async () => {
    const gates = (gate: string) => `
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: plain
    constraints:
      beforeDeployment:
${gate}
strategies:
  plain:
    canary:
      steps:
        - setWeight: {weight: 100}
webhooks:
  - name: slow
    method: POST
    uriTemplate: ${receiver.url}/hooks/slow
    networkMode: direct
    timeout: {duration: 2, unit: seconds}
    bodyTemplate:
      inline: '{"callbackUri": "{{vendor.callbackUri}}"}'
manifests:
  - inline: |
${potatoManifests('potato:timeouts').replace(/^(?=.)/gm, '      ')}`;
    const webhookId = await submit(gates('        - runWebhook: {name: slow}'));
    const call = await receiver.next(received++);
    const timedOut = await until(webhookId, 'the timeout', (v) => v.status !== 'RUNNING', 30_000);
    expect(timedOut.status).toBe('FAILED');
    expect(step(timedOut, 'staging/beforeDeployment[0]')).toMatchObject({
      status: 'FAILED',
      message: 'webhook slow: no callback within 2 seconds',
    });
    expect(step(timedOut, 'staging/deploy').status).toBe('SKIPPED');
    expect((await WebhookReceiver.callBack(call, TOKENS.ops, { success: true })).status).toBe(409);

    const approvalId = await submit(
      gates('        - pause: {untilApproved: true, approvalExpiration: {duration: 2, unit: seconds}}'),
    );
    const expired = await until(approvalId, 'the expiry', (v) => v.status !== 'RUNNING', 30_000);
    expect(expired.targets[0]?.message).toBe('not approved before the approval expired');
    expect((await releaseManager.post(`/deployments/${approvalId}/approve`, {})).status).toBe(409);
  });

  it('cloudctl deploy -f follows a canary with a webhook gate to its verdict, exit 0 only on success', async () => {
    const project = join(dir, 'cli');
    await mkdir(join(project, 'manifests'), { recursive: true });
    await writeFile(join(project, 'manifests', 'potato.yaml'), potatoManifests('potato:4'));
    const file = join(project, 'deploy.yaml');
    await writeFile(file, deploymentFile('potato:4', 'canary', { approval: false, manifests: 'path' }));
    const env = { CLOUDCTL_URL: system.url, CLOUDCTL_TOKEN: TOKENS.ops };
    const deploy = startProcess('cloudctl', ['deploy', '-f', file], env);
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, { success: true });
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, {
      success: true,
      mdMessage: 'canary healthy',
    });
    expect(await exitOf(deploy, 60_000)).toBe(0);
    const out = deploy.output();
    expect(out).toMatch(/deployment [0-9a-f-]{36} of potato started/);
    expect(out).toMatch(/\[staging\] setWeight 50%: succeeded: potato-[0-9a-f]{10} at 1 of 2/);
    expect(out).toMatch(/\[staging\] webhook gate says: canary healthy/);
    expect(out).toMatch(/target staging: SUCCEEDED\ndeployment [0-9a-f-]{36} SUCCEEDED\n$/);
    expect(out).not.toContain(TOKENS.ops);

    // A failing gate: the canary rolls back and the command says so with exit status 1.
    await writeFile(file, deploymentFile('potato:5', 'canary', { approval: false, manifests: 'path' }));
    const failing = startProcess('cloudctl', ['deploy', '-f', file], env);
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, { success: true });
    await WebhookReceiver.callBack(await receiver.next(received++), TOKENS.ops, { success: false });
    expect(await exitOf(failing, 60_000)).toBe(1);
    expect(failing.output()).toMatch(/deployment [0-9a-f-]{36} ROLLED_BACK\n$/);

    // A mistake in the file is reported at its line before anything is sent.
    await writeFile(file, 'application: potato\ntargets: {}\n');
    const bad = startProcess('cloudctl', ['deploy', '-f', file], env);
    expect(await exitOf(bad, 30_000)).toBe(1);
    expect(bad.output()).toContain(`${file}:2:`);
  });
});
