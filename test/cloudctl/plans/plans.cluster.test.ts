// Plans end to end: cloudctl and an agent as processes on the shared cluster. POST /plans with a
// deployManifest changes nothing (every resourceVersion the same, no object made) and names the image
// path it would change; applying runs exactly that as a task, once; an object edited after the plan
// (a PATCH as `kubectl edit` makes) refuses the apply with the object named and nothing written; an
// expired plan is gone (410); a user who may only read may plan and read but not apply; a Secret's
// values appear in no plan and in no log.
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone } from '../../support/task-wait.ts';
import { apiClient } from '../http-client.ts';

const NS = 'plans-e2e';
const TOKENS = {
  agent: 'agent-token-plans-5e1f',
  ops: 'ops-token-plans-93c2',
  viewer: 'view-token-plans-41d0',
};
const SECRET_VALUE = 'plan-secret-value-7f3a91';

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [
    { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
    { name: 'vic', token: TOKENS.viewer, roles: ['viewer'] },
  ],
  kinds: ['deployment', 'replicaSet', 'configMap', 'secret', 'pod', 'service'],
  read: ['ops', 'viewer'],
  write: ['ops'],
});
const ops = () => apiClient(fixture.system.url, TOKENS.ops);
const viewer = () => apiClient(fixture.system.url, TOKENS.viewer);

const deployment = (image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
  },
});

const deployOf = (manifests: unknown[]) => [
  {
    deployManifest: {
      account: NS,
      cloudProvider: 'orchestrator',
      source: 'text',
      moniker: { app: 'web' },
      manifests,
    },
  },
];

interface ClusterObject {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: Array<{ image: string }> } } };
  status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number };
}

async function clusterGet(path: string): Promise<ClusterObject> {
  const answer = await fixture.cluster.get(path);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as ClusterObject;
}

const WEB = `/apis/apps/v1/namespaces/${NS}/deployments/web`;

/** Every object of the kinds a deploy touches in the namespace, with its resourceVersion. */
async function namespaceVersions(): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const path of [
    `/apis/apps/v1/namespaces/${NS}/deployments`,
    `/apis/apps/v1/namespaces/${NS}/replicasets`,
    `/api/v1/namespaces/${NS}/configmaps`,
    `/api/v1/namespaces/${NS}/secrets`,
  ]) {
    const list = (await fixture.cluster.get(path)).json as { items: ClusterObject[] };
    for (const item of list.items) versions[`${path} ${item.metadata.name}`] = item.metadata.resourceVersion;
  }
  return versions;
}

/** The Deployment once its controller is done with it: its resourceVersion then holds still. */
async function settled(): Promise<ClusterObject> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const web = (await fixture.cluster.get(WEB)).json as ClusterObject & { metadata: { generation: number } };
    const status = web.status ?? {};
    if (
      status.observedGeneration === web.metadata.generation &&
      status.readyReplicas === 1 &&
      status.updatedReplicas === 1
    ) {
      // Status writes come in bursts; one more look after a pause confirms none is pending.
      await sleep(1500);
      const again = await clusterGet(WEB);
      if (again.metadata.resourceVersion === web.metadata.resourceVersion) return again;
    }
    if (Date.now() > deadline) throw new Error(`deployment web not settled: ${JSON.stringify(web.status)}`);
    await sleep(300);
  }
}

async function deploy(image: string): Promise<void> {
  const started = await ops().post('/ops', deployOf([deployment(image)]));
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const task = await taskDone(ops(), started.body.id, 60_000);
  expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
  await settled();
}

interface PlannedObject {
  kind: string;
  name: string;
  action: string;
  resourceVersion: string | null;
  diff: Array<{ path: string; before?: unknown; after?: unknown; secret?: boolean }>;
}

function objectIn(plan: { operations: Array<{ objects: PlannedObject[] }> }, kind: string, name: string) {
  const found = plan.operations.flatMap((o) => o.objects).find((o) => o.kind === kind && o.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name} in the plan: ${JSON.stringify(plan)}`);
  return found;
}

beforeAll(async () => {
  await deploy('registry.example/web:1');
}, 180_000);

describe('a plan of operations', () => {
  it('changes nothing, names the image path with before and after, applies as a task once, and a second apply is a 409 naming it', async () => {
    const before = await namespaceVersions();
    const planned = await ops().post('/plans', deployOf([deployment('registry.example/web:2')]));
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    const web = objectIn(planned.body, 'Deployment', 'web');
    expect(web.action).toBe('update');
    expect(web.resourceVersion).toBe(before[`/apis/apps/v1/namespaces/${NS}/deployments web`]);
    expect(web.diff).toContainEqual({
      path: 'spec.template.spec.containers[0].image',
      before: 'registry.example/web:1',
      after: 'registry.example/web:2',
    });
    expect(planned.body.summary).toMatchObject({ update: 1, refused: 0 });
    // Nothing written: the same objects, each at the same version.
    expect(await namespaceVersions()).toEqual(before);

    const read = await viewer().get(planned.body.resourceUri);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: planned.body.id, state: 'planned', createdBy: 'olga' });

    const applied = await ops().post(planned.body.applyUri);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const task = await taskDone(ops(), applied.body.id, 60_000);
    expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
    const live = await clusterGet(WEB);
    expect(live.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.example/web:2');

    const again = await ops().post(planned.body.applyUri);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(applied.body.id);
    expect(again.body.message).toContain(`/task/${applied.body.id}`);
    const after = await ops().get(planned.body.resourceUri);
    expect(after.body).toMatchObject({ state: 'applied', applied: { id: applied.body.id, by: 'olga' } });
    await settled();
  });

  it('refuses an apply after the planned Deployment was edited, naming it, and writes nothing', async () => {
    await settled();
    const planned = await ops().post('/plans', deployOf([deployment('registry.example/web:3')]));
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    const seen = objectIn(planned.body, 'Deployment', 'web').resourceVersion;
    // What `kubectl edit` sends: a patch by another client.
    const edit = await fixture.cluster.request('PATCH', WEB, {
      body: { metadata: { annotations: { 'edited-by': 'someone' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(edit.status, edit.text).toBe(200);
    const tasksBefore = (await ops().get('/task')).body.length;

    const applied = await ops().post(planned.body.applyUri);
    expect(applied.status).toBe(409);
    // The version now is the edit's or later (the Deployment's controller may answer the edit).
    const named = new RegExp(`Deployment ${NS}/web: resourceVersion ${seen} when planned, (\\d+) now`);
    expect(applied.body.message).toMatch(named);
    const now = Number(named.exec(applied.body.message)?.[1]);
    expect(now).toBeGreaterThanOrEqual(Number((edit.json as ClusterObject).metadata.resourceVersion));
    // No task, nothing written: the Deployment has the edit and the image it had.
    expect((await ops().get('/task')).body.length).toBe(tasksBefore);
    const after = await clusterGet(WEB);
    expect(after.metadata.annotations?.['edited-by']).toBe('someone');
    expect(after.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.example/web:2');
    expect((await ops().get(planned.body.resourceUri)).body.state).toBe('planned');
  });

  it('answers an expired plan as expired, and its apply as 410', async () => {
    const planned = await ops().post(
      '/plans?expireAfterSeconds=1',
      deployOf([deployment('registry.example/web:4')]),
    );
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect(Date.parse(planned.body.expiresAt) - Date.parse(planned.body.createdAt)).toBe(1000);
    await sleep(1500);
    expect((await ops().get(planned.body.resourceUri)).body.state).toBe('expired');
    const applied = await ops().post(planned.body.applyUri);
    expect(applied.status).toBe(410);
    expect(applied.body.message).toContain('expired');
  });

  it('lets a user who may only read plan and read the plan, not apply it', async () => {
    const refused = await viewer().post('/ops', deployOf([deployment('registry.example/web:5')]));
    expect(refused.status).toBe(403);
    const planned = await viewer().post('/plans', deployOf([deployment('registry.example/web:5')]));
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect((await viewer().get(planned.body.resourceUri)).status).toBe(200);
    const applied = await viewer().post(planned.body.applyUri);
    expect(applied.status).toBe(403);
    expect((await viewer().get(planned.body.resourceUri)).body.state).toBe('planned');
  });

  it('starts one task for two applies at once; the other is the 409 naming it', async () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'race', namespace: NS, annotations: { 'strategy.spinnaker.io/versioned': 'false' } },
      data: { a: '1' },
    };
    const planned = await ops().post('/plans', deployOf([configMap]));
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect(objectIn(planned.body, 'ConfigMap', 'race')).toMatchObject({
      action: 'create',
      resourceVersion: null,
    });
    const answers = await Promise.all([ops().post(planned.body.applyUri), ops().post(planned.body.applyUri)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200);
    const lost = answers.find((a) => a.status === 409);
    expect(lost?.body.message).toMatch(/applied|being applied/);
    expect((await taskDone(ops(), won?.body.id, 60_000)).status.failed).toBe(false);
    expect((await ops().get(planned.body.resourceUri)).body.applied.id).toBe(won?.body.id);
  });

  it('answers 404 for a plan that does not exist', async () => {
    expect((await ops().get('/plans/no-such-plan')).status).toBe(404);
    expect((await ops().post('/plans/no-such-plan/apply')).status).toBe(404);
  });

  it("keeps a Secret's values out of the plan, its diff and the logs, and says that a value changes", async () => {
    const secret = (value: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      // Not versioned, so a new value is an update of the same Secret.
      metadata: { name: 'creds', namespace: NS, annotations: { 'strategy.spinnaker.io/versioned': 'false' } },
      stringData: { password: value },
    });
    const created = await ops().post('/ops', deployOf([secret('first-value-0b2c')]));
    expect(created.status).toBe(200);
    expect((await taskDone(ops(), created.body.id, 60_000)).status.failed).toBe(false);

    const planned = await ops().post('/plans', deployOf([secret(SECRET_VALUE)]));
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    const creds = objectIn(planned.body, 'Secret', 'creds');
    expect(creds.action).toBe('update');
    expect(creds.diff).toContainEqual({
      path: 'data.password',
      before: '(hidden)',
      after: '(hidden)',
      secret: true,
    });
    const read = await ops().get(planned.body.resourceUri);
    const encoded = Buffer.from(SECRET_VALUE).toString('base64');
    for (const text of [JSON.stringify(planned.body), JSON.stringify(read.body)]) {
      expect(text).not.toContain(SECRET_VALUE);
      expect(text).not.toContain(encoded);
      expect(text).not.toContain('first-value-0b2c');
    }
    const applied = await ops().post(planned.body.applyUri);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await taskDone(ops(), applied.body.id, 60_000)).status.failed).toBe(false);
    const live = (await fixture.cluster.get(`/api/v1/namespaces/${NS}/secrets/creds`)).json as {
      data: Record<string, string>;
    };
    expect(live.data.password).toBe(encoded);
    for (const log of [fixture.system.cloudctl.output(), fixture.system.agent?.output() ?? '']) {
      expect(log).not.toContain(SECRET_VALUE);
      expect(log).not.toContain(encoded);
    }
  });
});
