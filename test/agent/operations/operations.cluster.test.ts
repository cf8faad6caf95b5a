import { once } from 'node:events';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountCluster } from '../../../src/agent/accounts/index.ts';
import type { OperationExecutor, OperationResult } from '../../../src/agent/operations/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';
import { createServiceAccountToken, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { AGENT_SECRET_ENV, accountCluster, executorFor, tokenKubeconfig } from './operation-fixture.ts';

const NS = 'ops-test';
let cluster: AccountCluster;
let executor: OperationExecutor;
let seq = 0;
const run = (
  type: string,
  payload: unknown,
  extra: { id?: string; account?: string; deadlineMs?: number } = {},
) =>
  executor.execute({
    id: extra.id ?? `op-${++seq}`,
    type,
    account: extra.account ?? 'test',
    payload,
    ...(extra.deadlineMs ? { deadlineMs: extra.deadlineMs } : {}),
  });

async function get(path: string): Promise<unknown> {
  return (await cluster.http.request({ verb: 'get', method: 'GET', path })).body;
}
const ok = (result: OperationResult) => {
  expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  expect(result.ok).toBe(true);
  return result.result;
};

function deployment(name: string, image: string, replicas = 1) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    },
  };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

beforeAll(async () => {
  const shared = sharedCluster();
  cluster = await accountCluster(shared.kubeconfigPath);
  const restricted = await accountCluster(
    tokenKubeconfig(shared.server, shared.caFile, await createServiceAccountTokenWithoutRights()),
  );
  executor = executorFor({ test: cluster, restricted }).executor;
  ok(await run('deploy', { manifests: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }] }));
});

/** A service account with no RBAC at all: every request it makes is Forbidden. */
async function createServiceAccountTokenWithoutRights() {
  const client = sharedClusterClient();
  try {
    await client.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody-ops' } },
    });
    return await createServiceAccountToken(client, 'default', 'nobody-ops');
  } finally {
    await client.close();
  }
}

describe('operations against a real cluster', () => {
  it('deploy applies manifests and reports what it applied', async () => {
    const result = ok(await run('deploy', { manifests: [deployment('web', 'registry.example/web:1')] }));
    expect(result).toEqual({
      applied: [
        expect.objectContaining({ kind: 'Deployment', name: 'web', namespace: NS, mode: 'client-side' }),
      ],
    });
  });

  it('scale sets the replicas, and the pods follow', async () => {
    ok(await run('deploy', { manifests: [deployment('scaled', 'registry.example/web:1')] }));
    expect(
      ok(await run('scale', { kind: 'Deployment', namespace: NS, name: 'scaled', replicas: 3 })),
    ).toEqual({ replicas: 3 });
    await until(async () => {
      const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/scaled`);
      return isRecord(d) && isRecord(d.status) && d.status.readyReplicas === 3 ? true : undefined;
    }, '3 ready replicas');
  });

  it('pause and resume toggle spec.paused; restart stamps the pod template', async () => {
    ok(await run('deploy', { manifests: [deployment('paused', 'registry.example/web:1')] }));
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/paused`;
    ok(await run('rollout', { action: 'pause', kind: 'Deployment', namespace: NS, name: 'paused' }));
    expect(await get(path)).toHaveProperty('spec.paused', true);
    ok(await run('rollout', { action: 'resume', kind: 'Deployment', namespace: NS, name: 'paused' }));
    // The API server omits `paused: false` when it writes the object out.
    expect(await get(path)).not.toHaveProperty('spec.paused', true);
    const restarted = ok(
      await run('rollout', { action: 'restart', kind: 'Deployment', namespace: NS, name: 'paused' }),
    );
    expect(restarted).toHaveProperty('restartedAt');
    expect(await get(path)).toHaveProperty(
      ['spec', 'template', 'metadata', 'annotations', 'kubectl.kubernetes.io/restartedAt'],
      (restarted as { restartedAt: string }).restartedAt,
    );
  });

  it('undo restores the previous pod template', async () => {
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/undo`;
    ok(await run('deploy', { manifests: [deployment('undo', 'registry.example/web:1')] }));
    await until(
      async () =>
        ((await get(path)) as { status?: { observedGeneration?: number } }).status?.observedGeneration ===
          1 || undefined,
      'rev 1',
    );
    ok(await run('deploy', { manifests: [deployment('undo', 'registry.example/web:2')] }));
    await until(async () => {
      const d = await get(path);
      return isRecord(d) &&
        isRecord(d.metadata) &&
        isRecord(d.metadata.annotations) &&
        d.metadata.annotations['deployment.kubernetes.io/revision'] === '2'
        ? true
        : undefined;
    }, 'revision 2');
    expect(
      ok(await run('rollout', { action: 'undo', kind: 'Deployment', namespace: NS, name: 'undo' })),
    ).toEqual({ action: 'undo', revision: 1 });
    expect(await get(path)).toHaveProperty('spec.template.spec.containers.0.image', 'registry.example/web:1');
    expect(await get(path)).not.toHaveProperty([
      'spec',
      'template',
      'metadata',
      'labels',
      'pod-template-hash',
    ]);
  });

  it('patch applies strategic, merge and json patches', async () => {
    ok(
      await run('deploy', {
        manifests: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'patched', namespace: NS },
            data: { a: '1' },
          },
        ],
      }),
    );
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'patched' };
    ok(await run('patch', { ...ref, patchType: 'merge', patch: { data: { b: '2' } } }));
    ok(await run('patch', { ...ref, patchType: 'strategic', patch: { data: { c: '3' } } }));
    ok(await run('patch', { ...ref, patchType: 'json', patch: [{ op: 'remove', path: '/data/a' }] }));
    expect(await get(`/api/v1/namespaces/${NS}/configmaps/patched`)).toHaveProperty('data', {
      b: '2',
      c: '3',
    });
  });

  it('patch of an object gone fails, unless ignoreNotFound says gone is fine', async () => {
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: NS, name: 'never-was' };
    const patch = { ...ref, patchType: 'merge', patch: { metadata: { labels: { a: 'b' } } } };
    const failed = await run('patch', patch);
    expect(failed.ok).toBe(false);
    expect(ok(await run('patch', { ...patch, ignoreNotFound: true }))).toEqual({ object: null, gone: true });
  });

  it('get, list and events read objects', async () => {
    ok(
      await run('deploy', {
        manifests: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'read-me', namespace: NS, labels: { read: 'yes' } },
          },
        ],
      }),
    );
    expect(
      ok(await run('get', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'read-me' })),
    ).toHaveProperty('object.metadata.name', 'read-me');
    const listed = ok(
      await run('list', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, labelSelector: 'read=yes' }),
    );
    expect(listed).toHaveProperty('items.length', 1);
    const events = ok(
      await run('events', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'scaled' }),
    );
    expect(events).toHaveProperty(
      'events',
      expect.arrayContaining([expect.objectContaining({ reason: 'ScalingReplicaSet' })]),
    );
  });

  it('runJob waits for the job and returns its outcome and pods', { timeout: 60_000 }, async () => {
    const result = ok(
      await run('runJob', {
        manifest: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { generateName: 'migrate-', namespace: NS },
          spec: {
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [{ name: 'migrate', image: 'registry.example/migrate:1' }],
              },
            },
          },
        },
      }),
    );
    expect(result).toMatchObject({
      namespace: NS,
      outcome: 'Complete',
      pods: [expect.objectContaining({ phase: 'Succeeded' })],
    });
    // kwok runs no containers, so there is no log to read: the result says why per container.
    expect(result).toHaveProperty('pods.0.logErrors.migrate', expect.any(String));
  });

  it('delete with wait returns once the object is gone', async () => {
    ok(
      await run('deploy', {
        manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed', namespace: NS } }],
      }),
    );
    expect(
      ok(
        await run('delete', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: NS,
          name: 'doomed',
          wait: true,
        }),
      ),
    ).toEqual({ deleted: true, gone: true });
    await expect(get(`/api/v1/namespaces/${NS}/configmaps/doomed`)).rejects.toMatchObject({ status: 404 });
  });
});

describe('operation rules', () => {
  it('runs a redelivered operation id once and returns the first result again', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end(`call ${requests}`);
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
    try {
      const first = run('httpRequest', { method: 'POST', url, body: '{}' }, { id: 'same-id' });
      const again = run('httpRequest', { method: 'POST', url, body: '{}' }, { id: 'same-id' });
      const later = await first;
      expect(await again).toBe(later);
      expect(await run('httpRequest', { method: 'POST', url }, { id: 'same-id' })).toBe(later);
      expect(requests).toBe(1);
      expect(later.result).toMatchObject({ status: 200, body: 'call 1', truncated: false });
    } finally {
      server.close();
    }
  });

  it('resolves secret headers of an http request with its own engines and never echoes them', async () => {
    const seen: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end('ok');
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
    try {
      const sent = await run('httpRequest', {
        method: 'POST',
        url,
        secretHeaders: { Authorization: 'encrypted:env!n:WEBHOOK_AUTH' },
      });
      expect(ok(sent)).toMatchObject({ status: 200, body: 'ok' });
      expect(seen).toEqual([AGENT_SECRET_ENV.WEBHOOK_AUTH]);
      const missing = await run('httpRequest', {
        method: 'POST',
        url,
        secretHeaders: { Authorization: 'encrypted:env!n:NOT_SET_ANYWHERE' },
      });
      expect(missing).toMatchObject({
        ok: false,
        error: { code: 'SECRET_UNRESOLVED', path: 'secretHeaders.Authorization' },
      });
      expect(seen).toHaveLength(1);
      expect(JSON.stringify([sent, missing])).not.toContain(String(AGENT_SECRET_ENV.WEBHOOK_AUTH));
    } finally {
      server.close();
    }
  });

  it('cuts an http response at the size limit and refuses schemes other than http and https', async () => {
    const server = createServer((_req, res) => res.end('x'.repeat(5000))).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    try {
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
      expect(ok(await run('httpRequest', { method: 'GET', url, maxResponseBytes: 100 }))).toMatchObject({
        status: 200,
        truncated: true,
        body: 'x'.repeat(100),
      });
      expect(await run('httpRequest', { method: 'GET', url: 'file:///etc/passwd' })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_PAYLOAD', path: 'url' },
      });
    } finally {
      server.close();
    }
  });

  it('reports an http request that got no answer as UNREACHABLE, and one past its own limit as DEADLINE_EXCEEDED', async () => {
    // A port nothing listens on: bound, then closed.
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedAddress = closed.address();
    const closedPort = typeof closedAddress === 'object' && closedAddress ? closedAddress.port : 0;
    closed.close();
    await once(closed, 'close');
    expect(
      await run('httpRequest', { method: 'POST', url: `http://127.0.0.1:${closedPort}/hook` }),
    ).toMatchObject({
      ok: false,
      error: {
        code: 'UNREACHABLE',
        message: expect.stringMatching(
          new RegExp(`^127\\.0\\.0\\.1:${closedPort}: fetch failed: ECONNREFUSED`),
        ),
      },
    });

    // A server that takes the request and never answers.
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const silentAddress = silent.address();
    const silentPort = typeof silentAddress === 'object' && silentAddress ? silentAddress.port : 0;
    try {
      const url = `http://127.0.0.1:${silentPort}/hook`;
      expect(await run('httpRequest', { method: 'GET', url, timeoutMs: 300 })).toEqual({
        id: expect.any(String),
        ok: false,
        error: { code: 'DEADLINE_EXCEEDED', message: `127.0.0.1:${silentPort}: no answer within 300 ms` },
        durationMs: expect.any(Number),
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it.each([
    ['an unknown operation type', 'explode', {}, 'test', 'UNKNOWN_OPERATION'],
    ['an unknown account', 'get', { apiVersion: 'v1', kind: 'Pod', name: 'x' }, 'nobody', 'UNKNOWN_ACCOUNT'],
    [
      'a payload missing a field',
      'scale',
      { kind: 'Deployment', namespace: NS, name: 'web' },
      'test',
      'INVALID_PAYLOAD',
    ],
    [
      'an unknown kind',
      'get',
      { apiVersion: 'example.com/v1', kind: 'Nope', name: 'x' },
      'test',
      'UNKNOWN_KIND',
    ],
    [
      'an invalid manifest',
      'deploy',
      { manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }] },
      'test',
      'INVALID_MANIFEST',
    ],
    [
      'a missing namespace',
      'deploy',
      { manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'absent' } }] },
      'test',
      'NOT_FOUND',
    ],
    [
      'a request the account is not allowed',
      'get',
      { apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'x' },
      'restricted',
      'FORBIDDEN',
    ],
  ])('answers %s with a clear error result', async (_what, type, payload, account, code) => {
    const result = await run(type, payload, { account });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe(code);
    expect(result.error?.message.length).toBeGreaterThan(10);
  });

  it('names the bad field of a payload and of a manifest', async () => {
    expect(
      (await run('scale', { kind: 'Deployment', namespace: NS, name: 'web', replicas: -1 })).error,
    ).toMatchObject({ path: 'replicas' });
    expect(
      (
        await run('deploy', {
          manifests: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'UPPER', namespace: 'Bad_Ns' } },
          ],
        })
      ).error,
    ).toMatchObject({
      code: 'INVALID_MANIFEST',
      path: 'manifests[0].metadata.namespace',
    });
  });

  it('fails an operation that outlives its deadline', async () => {
    ok(
      await run('deploy', {
        manifests: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'kept', namespace: NS, finalizers: ['example.com/hold'] },
          },
        ],
      }),
    );
    const result = await run(
      'delete',
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'kept', wait: true },
      { deadlineMs: 1500 },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'DEADLINE_EXCEEDED' } });
    expect(result.durationMs).toBeGreaterThanOrEqual(1400);
    ok(
      await run('patch', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: NS,
        name: 'kept',
        patchType: 'merge',
        patch: { metadata: { finalizers: null } },
      }),
    );
  });
});

afterAll(async () => {
  await cluster?.http
    .request({ verb: 'delete', method: 'DELETE', path: `/api/v1/namespaces/${NS}` })
    .catch(() => undefined);
});
