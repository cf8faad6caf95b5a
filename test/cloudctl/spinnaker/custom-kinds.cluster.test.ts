// Custom kinds as Spinnaker uses them, against the real cluster through a real agent and cloudctl,
// from clouddriver's integration cases (DeployManifestIT's CRD cases): a CRD and its custom resources
// deployed through POST /ops — one CRD namespaced, one cluster-scoped — then the kind in the account's
// spinnakerKindMap under the key clients look up (`crontab.stable.example.com`), both objects read
// through GET /manifests, and their health read from the status conditions their controller writes
// (here the test, through the status subresource). Also the account's `namespaces`, which Deck's
// namespace drop-downs read.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone } from '../../support/task-wait.ts';
import { apiClient } from '../http-client.ts';

const NS = 'spin-crd';
const ACCOUNT = 'spin-crd';
const TOKENS = { agent: 'agent-token-crd-5e21', ops: 'ops-token-crd-93fa' };
const NAMESPACED = { group: 'stable.example.com', plural: 'crontabs' };
const CLUSTER = { group: 'stable.cluster.com', plural: 'crontabs' };

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
  // As clouddriver's integration account lists them: the CRDs, and one of the two custom kinds. The
  // other is never watched: cloudctl knows it from its CRD alone, and reads its objects live.
  kinds: ['configMap', 'customResourceDefinition', 'crontab.stable.example.com'],
  read: ['ops'],
  write: ['ops'],
});
const ops = () => apiClient(fixture.system.url, TOKENS.ops);

afterAll(async () => {
  for (const { group, plural } of [NAMESPACED, CLUSTER])
    await fixture.cluster.request(
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`,
    );
});

function crd(group: string, scope: 'Namespaced' | 'Cluster') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope,
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { cronSpec: { type: 'string' }, image: { type: 'string' } },
                },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

const cronTab = (group: string, name: string) => ({
  apiVersion: `${group}/v1`,
  kind: 'CronTab',
  metadata: { name },
  spec: { cronSpec: '* * * * */5', image: 'my-awesome-cron-image' },
});

/** Deploys as Orca does and waits for the task; answers the names it deployed. */
async function deploy(manifests: unknown[], extra: Record<string, unknown> = {}) {
  const started = await ops().post('/ops', [
    {
      deployManifest: {
        account: ACCOUNT,
        cloudProvider: 'orchestrator',
        source: 'text',
        moniker: { app: 'crons' },
        manifests,
        ...extra,
      },
    },
  ]);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const task = await taskDone(ops(), started.body.id);
  expect(task.status.failed, JSON.stringify(task.history)).toBe(false);
  return task.resultObjects[0]?.manifestNamesByNamespace;
}

const crdStatus = z.object({
  status: z
    .object({ conditions: z.array(z.object({ type: z.string(), status: z.string() })).default([]) })
    .default({ conditions: [] }),
});

/** The API server serves a CRD's kind only once the CRD is Established. */
async function established(name: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const read = await fixture.cluster.request(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    const { conditions } = crdStatus.parse(read.json).status;
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not established: ${JSON.stringify(conditions)}`);
    await sleep(100);
  }
}

/** Polls until `check` passes (its last failure is thrown after the deadline). */
async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => void,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

const manifest = (location: string, name: string) =>
  ops().get(`/manifests/${ACCOUNT}/${location}/${encodeURIComponent(name)}?includeEvents=false`);

async function setStatus(path: string, status: Record<string, unknown>) {
  const answer = await fixture.cluster.request('PATCH', `${path}/status`, {
    body: { status },
    contentType: 'application/merge-patch+json',
  });
  expect(answer.status, answer.text).toBe(200);
}

describe('a CRD and its custom resources deployed through POST /ops', () => {
  it('deploys both CRDs, then a CronTab of each, and reads both through GET /manifests', async () => {
    for (const [{ group }, scope] of [
      [NAMESPACED, 'Namespaced'],
      [CLUSTER, 'Cluster'],
    ] as const) {
      expect(await deploy([crd(group, scope)])).toEqual({
        '': [`customResourceDefinition crontabs.${group}`],
      });
      await established(`crontabs.${group}`);
    }
    expect(await deploy([cronTab(NAMESPACED.group, 'nightly')], { namespaceOverride: NS })).toEqual({
      [NS]: [`CronTab.${NAMESPACED.group} nightly`],
    });
    expect(await deploy([cronTab(CLUSTER.group, 'weekly')])).toEqual({
      '': [`CronTab.${CLUSTER.group} weekly`],
    });

    // Read at once, as a pipeline's "wait for manifest to stabilize" does right after the deploy.
    const namespaced = await manifest(NS, `CronTab.${NAMESPACED.group} nightly`);
    expect(namespaced.status, JSON.stringify(namespaced.body)).toBe(200);
    expect(namespaced.body).toMatchObject({
      account: ACCOUNT,
      location: NS,
      manifest: { kind: 'CronTab', metadata: { name: 'nightly', namespace: NS } },
      status: { stable: { state: true } },
    });
    // A cluster-scoped object is found under `_`, under no location, and under the location clouddriver's
    // own cases pass for it (`default`).
    for (const location of ['_', 'default']) {
      const read = await manifest(location, `CronTab.${CLUSTER.group} weekly`);
      expect(read.status, `${location}: ${JSON.stringify(read.body)}`).toBe(200);
      expect(read.body).toMatchObject({ manifest: { kind: 'CronTab', metadata: { name: 'weekly' } } });
      expect(read.body.manifest.metadata.namespace).toBeUndefined();
    }
    const bare = await ops().get(
      `/manifests/${ACCOUNT}/${encodeURIComponent(`CronTab.${CLUSTER.group} weekly`)}`,
    );
    expect(bare.status).toBe(200);
  });

  it('lists the custom kinds in spinnakerKindMap under the keys clients look up', async () => {
    const one = await ops().get(`/credentials/${ACCOUNT}`);
    expect(one.status).toBe(200);
    expect(one.body.spinnakerKindMap).toMatchObject({
      'crontab.stable.example.com': 'unclassified',
      'crontab.stable.cluster.com': 'unclassified',
      customResourceDefinition: 'unclassified',
    });
    const all = await ops().get('/credentials?expand=true');
    const entry = all.body.find((a: { name: string }) => a.name === ACCOUNT);
    expect(entry.spinnakerKindMap['crontab.stable.example.com']).toBe('unclassified');
  });

  it('caches objects of a listed kind once the agent has noticed its CRD, and never of an unlisted one', async () => {
    // Nothing told the agent of this kind when it started: it watches it since its CRD came.
    const names = (answer: { body: Array<{ name: string; namespace: string }> }) =>
      answer.body.map((r) => `${r.namespace}/${r.name}`);
    const listed = await eventually(
      () => ops().get('/applications/crons/rawResources'),
      (answer) => expect(names(answer)).toContain(`${NS}/CronTab.${NAMESPACED.group} nightly`),
    );
    // The cluster-scoped object read above came from the cluster, through the kind its CRD defines.
    expect(names(listed)).not.toContain(`/CronTab.${CLUSTER.group} weekly`);
  });
});

describe('health of a custom resource, from the conditions its controller writes', () => {
  it('is unstable with the condition in words while Ready is False, then stable once Ready is True', async () => {
    const path = `/apis/${NAMESPACED.group}/v1/namespaces/${NS}/crontabs/nightly`;
    const name = `CronTab.${NAMESPACED.group} nightly`;
    await setStatus(path, {
      conditions: [{ type: 'Ready', status: 'False', reason: 'ImagePullFailed', message: 'image not found' }],
    });
    const message = 'Ready is False (ImagePullFailed): image not found';
    await eventually(
      () => manifest(NS, name),
      (answer) =>
        expect(answer.body.status).toMatchObject({
          stable: { state: false, message },
          available: { state: false, message },
          failed: { state: false },
        }),
    );
    await setStatus(path, {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Scheduled', message: 'ok' }],
    });
    await eventually(
      () => manifest(NS, name),
      (answer) =>
        expect(answer.body.status).toMatchObject({ stable: { state: true }, available: { state: true } }),
    );
  });

  it('waits for the controller to observe a new generation, and fails a Stalled cluster-scoped object', async () => {
    const path = `/apis/${CLUSTER.group}/v1/crontabs/weekly`;
    const name = `CronTab.${CLUSTER.group} weekly`;
    const live = await fixture.cluster.request('GET', path);
    const generation = z.object({ metadata: z.object({ generation: z.number() }) }).parse(live.json)
      .metadata.generation;
    await setStatus(path, { observedGeneration: generation - 1 });
    await eventually(
      () => manifest('_', name),
      (answer) =>
        expect(answer.body.status.stable).toEqual({
          state: false,
          message: `Waiting for the controller to observe generation ${generation} (it has observed ${generation - 1})`,
        }),
    );
    await setStatus(path, {
      observedGeneration: generation,
      conditions: [
        { type: 'Stalled', status: 'True', reason: 'BadSchedule', message: 'cronSpec does not parse' },
      ],
    });
    await eventually(
      () => manifest('_', name),
      (answer) =>
        expect(answer.body.status.failed).toEqual({
          state: true,
          message: 'Stalled is True (BadSchedule): cronSpec does not parse',
        }),
    );
  });
});

describe('namespaces in GET /credentials', () => {
  it('gives an agent account the namespaces cloudctl sees for it, as the agents API does', async () => {
    const seen = await ops().get(`/agents/orchestrator/accounts/${ACCOUNT}/namespaces`);
    expect(seen.body).toEqual([NS]);
    const one = await ops().get(`/credentials/${ACCOUNT}`);
    expect(one.body.namespaces).toEqual([NS]);
    const all = await ops().get('/credentials?expand=true');
    expect(all.body.find((a: { name: string }) => a.name === ACCOUNT).namespaces).toEqual([NS]);
    const summary = await ops().get('/credentials');
    expect(summary.body.find((a: { name: string }) => a.name === ACCOUNT)).not.toHaveProperty('namespaces');
  });

  it('gives a cloudctl account the namespaces its definition lists, less those it omits', async () => {
    const created = await ops().post('/credentials', {
      name: 'crd-listed',
      type: 'orchestrator',
      context: 'elsewhere',
      namespaces: ['shop', 'billing', 'scratch'],
      omitNamespaces: ['scratch'],
      permissions: { READ: ['ops'], WRITE: ['ops'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const read = await ops().get('/credentials/crd-listed');
    expect(read.body.namespaces).toEqual(['shop', 'billing']);
    expect((await ops().delete('/credentials/crd-listed')).status).toBe(204);
  });
});
