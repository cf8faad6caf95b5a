// Drift end to end: cloudctl and an agent as processes on the shared cluster. A Deployment deployed
// through POST /ops and then scaled as `kubectl scale` does (a PATCH of its scale subresource by the
// field manager `kubectl`) is flagged in GET /manifests' warnings and `drift` with the manager, the
// subresource, spec.replicas and when, and a /watch client gets one drift event for it; an edit of
// its image as `kubectl edit` makes (manager kubectl-edit) names the container's image path; an
// object cloudctl did not deploy is never flagged, however scaled; re-apply plans the recorded
// manifest (its diff puts the replicas and image back), applying it clears the drift, and so does
// deploying again through POST /ops.
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseStream } from '../../support/sse-client.ts';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiAnswer, apiClient } from '../http-client.ts';

const NS = 'drift-e2e';
const TOKENS = { agent: 'agent-token-drift-3b7e', ops: 'ops-token-drift-c41a' };

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
  kinds: ['deployment', 'replicaSet'],
  read: ['ops'],
  write: ['ops'],
});
const ops = () => apiClient(fixture.system.url, TOKENS.ops);

const web = (image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
  },
});
const IMAGE = 'registry.example/web:1';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;

async function deploy(): Promise<void> {
  const started = await ops().post('/ops', [
    { deployManifest: { account: NS, moniker: { app: 'web' }, manifests: [web(IMAGE)] } },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const task = await taskDone(ops(), started.body.id, 60_000);
  expect(task.status, JSON.stringify(task)).toMatchObject({ completed: true, failed: false });
}

/** `kubectl scale deployment NAME --replicas=N`: the scale subresource, field manager `kubectl`. */
async function kubectlScale(name: string, replicas: number): Promise<void> {
  const answer = await fixture.cluster.request('PATCH', `${DEPLOYMENTS}/${name}/scale?fieldManager=kubectl`, {
    body: { spec: { replicas } },
    contentType: 'application/merge-patch+json',
  });
  expect(answer.status, answer.text).toBe(200);
}

const manifest = (name: string) =>
  ops().get(`/manifests/${NS}/${NS}/${encodeURIComponent(`deployment ${name}`)}`);

/** Asks for the manifest until `done` holds; the last answer otherwise, for the assertion to show. */
async function manifestWhen(name: string, done: (answer: ApiAnswer) => boolean): Promise<ApiAnswer> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const answer = await manifest(name);
    if ((answer.status === 200 && done(answer)) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Waits until the Deployment's rollout is over and its resourceVersion holds still: a plan's apply
 * refuses an object that moved since the plan, status writes included.
 */
async function settled(name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const live = (await fixture.cluster.get(`${DEPLOYMENTS}/${name}`)).json as {
      metadata: { resourceVersion: string; generation: number };
      spec: { replicas: number };
      status?: {
        observedGeneration?: number;
        updatedReplicas?: number;
        readyReplicas?: number;
        replicas?: number;
      };
    };
    const { status = {} } = live;
    const done =
      status.observedGeneration === live.metadata.generation &&
      status.updatedReplicas === live.spec.replicas &&
      status.readyReplicas === live.spec.replicas &&
      status.replicas === live.spec.replicas;
    if (done && live.metadata.resourceVersion === last) return;
    last = done ? live.metadata.resourceVersion : '';
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
  throw new Error(`deployment ${name} did not settle`);
}

const driftWarnings = (answer: ApiAnswer): string[] =>
  answer.body.warnings
    .filter((w: { type: string }) => w.type === 'drift')
    .map((w: { message: string }) => w.message);
const driftOf = (name: string) => (e: SseEvent) => e.event === 'drift' && e.data.name === name;

describe('drift', () => {
  it('flags a kubectl scale with the manager and spec.replicas, and tells a /watch client once', async () => {
    await deploy();
    const stream = await SseStream.open(`${fixture.system.url}/watch?account=${NS}&events=drift,object`, {
      authorization: `Bearer ${TOKENS.ops}`,
    });
    try {
      await stream.waitFor((e) => e.event === 'position');
      const clean = await manifestWhen(
        'web',
        (a) => a.body.manifest.metadata.annotations?.['deploy.vendor.io/content-hash'] !== undefined,
      );
      expect(clean.body.drift).toBeNull();
      expect(driftWarnings(clean)).toEqual([]);

      await kubectlScale('web', 2);
      const drifted = await manifestWhen('web', (a) => a.body.drift !== null);
      expect(drifted.body.drift, JSON.stringify(drifted.body.warnings)).not.toBeNull();
      expect(drifted.body.drift.managers).toEqual([
        expect.objectContaining({
          manager: 'kubectl',
          subresource: 'scale',
          paths: ['spec.replicas'],
          morePaths: 0,
        }),
      ]);
      const [warning] = driftWarnings(drifted);
      expect(warning).toMatch(
        /^spec\.replicas changed by kubectl \(scale\)( at \d{4}-\d\d-\d\dT[\d:]+Z| \(when is not recorded\)), after cloudctl deployed it$/,
      );

      const event = await stream.waitFor(driftOf('web'), 30_000);
      expect(event.data).toMatchObject({
        account: NS,
        kind: 'Deployment',
        namespace: NS,
        name: 'web',
        drift: { managers: [{ manager: 'kubectl', paths: ['spec.replicas'] }] },
        messages: [warning],
      });
      // The controller's status writes that follow change the object, not its drift: no second event,
      // while the object events carry the drift as it stands.
      await stream.waitFor(
        (e) => e.event === 'object' && e.data.name === 'web' && e.data.figures?.replicas?.ready === 2,
        30_000,
      );
      expect(stream.events.filter(driftOf('web'))).toHaveLength(1);
      const objects = stream.events.filter((e) => e.event === 'object' && e.data.name === 'web');
      expect(objects.at(-1)?.data.drift).toEqual(drifted.body.drift);
    } finally {
      stream.close();
    }
  }, 120_000);

  it('names the image path a kubectl edit changed, with its manager', async () => {
    const edit = await fixture.cluster.request('PATCH', `${DEPLOYMENTS}/web?fieldManager=kubectl-edit`, {
      body: {
        spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example/web:edited' }] } } },
      },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(edit.status, edit.text).toBe(200);
    const drifted = await manifestWhen('web', (a) =>
      (a.body.drift?.managers ?? []).some((m: { manager: string }) => m.manager === 'kubectl-edit'),
    );
    const editor = drifted.body.drift.managers.find((m: { manager: string }) => m.manager === 'kubectl-edit');
    expect(editor).toMatchObject({
      operation: 'Update',
      paths: ['spec.template.spec.containers[name=web].image'],
    });
    expect(editor.subresource).toBeUndefined();
    expect(driftWarnings(drifted)).toContainEqual(
      expect.stringMatching(
        /^spec\.template\.spec\.containers\[name=web\]\.image changed by kubectl-edit at .+, after cloudctl deployed it$/,
      ),
    );
  }, 120_000);

  it('never flags an object cloudctl did not deploy, however it is scaled', async () => {
    const created = await fixture.cluster.request('POST', `${DEPLOYMENTS}?fieldManager=kubectl-create`, {
      body: { ...web(IMAGE), metadata: { name: 'by-hand', namespace: NS } },
    });
    expect(created.status, created.text).toBe(201);
    await kubectlScale('by-hand', 3);
    const scaled = await manifestWhen('by-hand', (a) => a.body.manifest.spec.replicas === 3);
    expect(scaled.body.manifest.spec.replicas).toBe(3);
    expect(scaled.body.drift).toBeNull();
    expect(driftWarnings(scaled)).toEqual([]);
  }, 120_000);

  it('re-apply plans what cloudctl deployed, and applying it clears the drift', async () => {
    await settled('web');
    const planned = await ops().post(
      `/manifests/${NS}/${NS}/${encodeURIComponent('deployment web')}/reapply`,
    );
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    const [object] = planned.body.operations[0].objects;
    expect(object).toMatchObject({ kind: 'Deployment', name: 'web', action: 'update' });
    expect(object.diff).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'spec.replicas', before: 2, after: 1 }),
        expect.objectContaining({
          path: 'spec.template.spec.containers[0].image',
          before: 'registry.example/web:edited',
          after: IMAGE,
        }),
      ]),
    );
    const applied = await ops().post(planned.body.applyUri);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const task = await taskDone(ops(), applied.body.id, 60_000);
    expect(task.status, JSON.stringify(task)).toMatchObject({ completed: true, failed: false });
    const clean = await manifestWhen('web', (a) => a.body.drift === null);
    expect(clean.body.drift).toBeNull();
    expect(driftWarnings(clean)).toEqual([]);
    expect(clean.body.manifest.spec.replicas).toBe(1);

    const unknown = await ops().post(
      `/manifests/${NS}/${NS}/${encodeURIComponent('deployment by-hand')}/reapply`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('cloudctl has deployed no deployment by-hand');
  }, 120_000);

  it('deploying again through POST /ops clears the drift', async () => {
    await kubectlScale('web', 4);
    await manifestWhen('web', (a) => a.body.drift !== null);
    await deploy();
    const clean = await manifestWhen('web', (a) => a.body.drift === null);
    expect(clean.body.drift).toBeNull();
    expect(clean.body.manifest.spec.replicas).toBe(1);
  }, 120_000);
});
