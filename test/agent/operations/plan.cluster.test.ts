// Plans and planned writes on a real cluster: a `plan` dry-runs an operation's writes (server-side,
// `dryRun=All`), answers each object's live and planned forms, the API server's verdict and the agent
// identity's access, and changes nothing; a write carrying `expect` runs only while every object is
// as the plan saw it.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountCluster } from '../../../src/agent/accounts/index.ts';
import {
  HANDLERS,
  type OperationExecutor,
  type OperationResult,
} from '../../../src/agent/operations/index.ts';
import { checkResult, type OperationResult as Result } from '../../../src/contract/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';
import {
  type ApiClient,
  createServiceAccountToken,
  sharedCluster,
  sharedClusterClient,
} from '../../cluster/index.ts';
import { accountCluster, executorFor, tokenKubeconfig } from './operation-fixture.ts';

const NS = 'plan-test';
const SSA = '  serverSideApply:\n    enabled: always\n';
let admin: ApiClient;
let executor: OperationExecutor;
let ssaCluster: AccountCluster;
let seq = 0;

const run = (type: string, payload: unknown, account = 'test') =>
  executor.execute({ id: `plan-op-${++seq}`, type, account, payload });

function ok(result: OperationResult): unknown {
  expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  return result.result;
}

async function plan(operation: { type: string; payload: unknown }, account = 'test') {
  const answer = await run('plan', { operation }, account);
  const checked = checkResult('plan', ok(answer));
  if (!checked.ok) throw new Error(`plan result off contract: ${checked.path}: ${checked.message}`);
  return { result: checked.value, raw: JSON.stringify(answer.result) };
}
type Planned = Result<'plan'>['objects'][number];

/** The plan's i-th object; the test fails when there is none. */
function objectAt(result: Result<'plan'>, i: number): Planned {
  const object = result.objects[i];
  if (object === undefined) throw new Error(`the plan has no object ${i}: ${JSON.stringify(result)}`);
  return object;
}

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

const configMap = (name: string, data: Record<string, string>, namespace = NS) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

async function getJson(path: string): Promise<Record<string, unknown> | undefined> {
  const answer = await admin.request('GET', path);
  if (answer.status === 404) return undefined;
  expect(answer.status, answer.text).toBe(200);
  return isRecord(answer.json) ? answer.json : undefined;
}

/** name → resourceVersion of every object of these kinds in the namespace. */
async function versionsIn(namespace: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of [
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    `/api/v1/namespaces/${namespace}/configmaps`,
    `/api/v1/namespaces/${namespace}/secrets`,
  ]) {
    const list = await getJson(path);
    for (const item of Array.isArray(list?.items) ? list.items.filter(isRecord) : []) {
      const metadata = isRecord(item.metadata) ? item.metadata : {};
      out[`${path}/${String(metadata.name)}`] = String(metadata.resourceVersion);
    }
  }
  return out;
}

/**
 * Waits until the Deployment's controller is done with it (its status observed the latest generation
 * and the resourceVersion holds for a second), so a resourceVersion the test compares is not moved by
 * the controller's status writes.
 */
async function settled(name: string): Promise<Record<string, unknown>> {
  const path = `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
  let last = '';
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(1000)) {
    const object = await getJson(path);
    const version = String(at(object, 'metadata', 'resourceVersion'));
    const observed = at(object, 'status', 'observedGeneration') === at(object, 'metadata', 'generation');
    if (object !== undefined && observed && version === last) return object;
    last = version;
  }
  throw new Error(`Deployment ${name} did not settle within 60 s`);
}

/** The value at a path of object keys and list indexes, or undefined. */
function at(object: unknown, ...path: Array<string | number>): unknown {
  return path.reduce<unknown>((o, k) => {
    if (typeof k === 'number') return Array.isArray(o) ? o[k] : undefined;
    return isRecord(o) ? o[k] : undefined;
  }, object);
}

beforeAll(async () => {
  const shared = sharedCluster();
  admin = sharedClusterClient();
  const cluster = await accountCluster(shared.kubeconfigPath);
  ssaCluster = await accountCluster(shared.kubeconfigPath, SSA);
  const noSecretDelete = await accountCluster(
    tokenKubeconfig(shared.server, shared.caFile, await tokenWithoutSecretDelete()),
  );
  // An account that may write to the test namespace only (the account's `namespaces`).
  const narrow = { ...cluster, account: { ...cluster.account, namespaces: [NS] } };
  executor = executorFor({ test: cluster, ssa: ssaCluster, noSecretDelete, narrow }).executor;
});

afterAll(async () => {
  await admin.close();
});

/**
 * A service account that may read and write Secrets and ConfigMaps in the test namespace but not
 * delete them (the test cluster authorizes with RBAC alone, so a SelfSubjectAccessReview says no).
 */
async function tokenWithoutSecretDelete(): Promise<string> {
  const create = async (path: string, body: unknown) => {
    const answer = await admin.request('POST', path, { body });
    expect([201, 409], answer.text).toContain(answer.status);
  };
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await create(`/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'no-secret-delete' },
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'no-secret-delete' },
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets', 'configmaps'],
        verbs: ['get', 'list', 'create', 'patch', 'update'],
      },
    ],
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'no-secret-delete' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'no-secret-delete' },
    subjects: [{ kind: 'ServiceAccount', name: 'no-secret-delete', namespace: NS }],
  });
  return createServiceAccountToken(admin, NS, 'no-secret-delete');
}

describe('plan', () => {
  it('changes nothing: every resourceVersion stays, nothing planned is created or deleted', async () => {
    ok(
      await run('deploy', {
        manifests: [deployment('still', 'registry.example/web:1'), configMap('still', { a: '1' })],
      }),
    );
    await settled('still');
    const before = await versionsIn(NS);
    const { result } = await plan({
      type: 'deploy',
      payload: {
        manifests: [
          deployment('still', 'registry.example/web:2', 3),
          configMap('still', { a: '2' }),
          configMap('never-created', { b: '1' }),
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'never-created', namespace: NS },
            stringData: { k: 'v' },
          },
        ],
      },
    });
    expect(result.objects.map((o) => [o.kind, o.name, o.action])).toEqual([
      ['Deployment', 'still', 'update'],
      ['ConfigMap', 'still', 'update'],
      ['ConfigMap', 'never-created', 'create'],
      ['Secret', 'never-created', 'create'],
    ]);
    expect(result.objects.every((o) => o.dryRun.allowed)).toBe(true);
    const deleted = await plan({
      type: 'delete',
      payload: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'still' },
    });
    expect(deleted.result.objects[0]).toMatchObject({
      action: 'delete',
      planned: null,
      dryRun: { allowed: true },
    });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
    const selected = await plan({
      type: 'deleteSelected',
      payload: { kinds: [cm], namespace: NS, labelSelector: 'kubernetes.io/metadata.name!=x' },
    });
    expect(selected.result.objects.map((o) => [o.name, o.action])).toContainEqual(['still', 'delete']);
    const named = await plan({
      type: 'deleteObjects',
      payload: {
        objects: [
          { ...cm, namespace: NS, name: 'still' },
          { ...cm, namespace: NS, name: 'never-was' },
        ],
      },
    });
    expect(named.result.objects.map((o) => [o.name, o.action])).toEqual([
      ['still', 'delete'],
      ['never-was', 'none'],
    ]);
    // Recreated and replaced objects: their deletes and writes are dry runs too.
    const strategies = await plan({
      type: 'deploy',
      payload: {
        manifests: [
          {
            ...configMap('still', { a: '3' }),
            metadata: {
              name: 'still',
              namespace: NS,
              annotations: { 'strategy.spinnaker.io/recreate': 'true' },
            },
          },
          {
            ...deployment('still', 'registry.example/web:3'),
            metadata: {
              name: 'still',
              namespace: NS,
              annotations: { 'strategy.spinnaker.io/replace': 'true' },
            },
          },
        ],
      },
    });
    expect(strategies.result.objects.map((o) => [o.kind, o.action, o.dryRun.allowed])).toEqual([
      ['ConfigMap', 'update', true],
      ['Deployment', 'update', true],
    ]);
    expect(strategies.result.objects[0]?.access.map((a) => a.verb)).toEqual(['delete', 'create']);
    expect(await versionsIn(NS)).toEqual(before);
  });

  it.each([
    ['client-side', 'test'],
    ['server-side', 'ssa'],
  ])(
    'an image change (%s apply) is an update whose live and planned differ at the image',
    async (_mode, account) => {
      const name = `image-${account}`;
      ok(await run('deploy', { manifests: [deployment(name, 'registry.example/web:1')] }, account));
      const live = await settled(name);
      const { result } = await plan(
        { type: 'deploy', payload: { manifests: [deployment(name, 'registry.example/web:2')] } },
        account,
      );
      const object = objectAt(result, 0);
      expect(object).toMatchObject({
        kind: 'Deployment',
        namespace: NS,
        name,
        action: 'update',
        dryRun: { allowed: true },
      });
      expect(object.resourceVersion).toBe(at(live, 'metadata', 'resourceVersion'));
      const image = ['spec', 'template', 'spec', 'containers', 0, 'image'];
      expect(at(object.live, ...image)).toBe('registry.example/web:1');
      expect(at(object.planned, ...image)).toBe('registry.example/web:2');
      expect(at(object.live, 'metadata', 'managedFields')).toBeUndefined();
      // The same manifest again changes nothing.
      const same = await plan(
        { type: 'deploy', payload: { manifests: [deployment(name, 'registry.example/web:1')] } },
        account,
      );
      expect(same.result.objects[0]?.action).toBe('none');
    },
  );

  it('an object in a Namespace the same deploy creates is shown as not dry-run', async () => {
    const { result } = await plan({
      type: 'deploy',
      payload: {
        manifests: [
          configMap('inside', { a: '1' }, 'plan-test-new'),
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plan-test-new' } },
        ],
      },
    });
    expect(result.objects.map((o) => [o.kind, o.action, o.dryRun.allowed, o.dryRun.reason])).toEqual([
      ['Namespace', 'create', true, undefined],
      ['ConfigMap', 'create', true, 'NotDryRun'],
    ]);
    expect(result.objects[1]?.unknown.join()).toContain('Namespace plan-test-new');
    expect(await getJson('/api/v1/namespaces/plan-test-new')).toBeUndefined();
  });

  it("refuses, in the plan, a manifest outside the account's namespaces, and still plans the others", async () => {
    const { result } = await plan(
      {
        type: 'deploy',
        payload: {
          manifests: [configMap('elsewhere', { a: '1' }, 'default'), configMap('here', { a: '1' })],
        },
      },
      'narrow',
    );
    expect(result.objects.map((o) => [o.namespace, o.action, o.dryRun.allowed])).toEqual([
      ['default', 'create', false],
      [NS, 'create', true],
    ]);
    expect(objectAt(result, 0).dryRun.message).toContain('wrongNamespace');
  });

  it('a ValidatingAdmissionPolicy that refuses the object shows as the dry run refused, with its message', async () => {
    const policy = 'plan-test-max-replicas';
    const create = async (path: string, body: unknown) => {
      const answer = await admin.request('POST', path, { body });
      expect([201, 409], answer.text).toContain(answer.status);
    };
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['apps'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['deployments'],
            },
          ],
        },
        validations: [{ expression: 'object.spec.replicas <= 5', message: 'plan-test: at most 5 replicas' }],
      },
    });
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } } },
      },
    });
    ok(await run('deploy', { manifests: [deployment('limited', 'registry.example/web:1', 2)] }));
    const before = await settled('limited');
    // The API server takes the new policy up within a few seconds.
    let refused: Planned | undefined;
    for (
      const deadline = Date.now() + 30_000;
      refused === undefined && Date.now() < deadline;
      await sleep(500)
    ) {
      const { result } = await plan({
        type: 'deploy',
        payload: { manifests: [deployment('limited', 'registry.example/web:1', 6)] },
      });
      if (result.objects[0]?.dryRun.allowed === false) refused = result.objects[0];
    }
    expect(refused?.dryRun.message).toContain('plan-test: at most 5 replicas');
    expect(refused).toMatchObject({
      action: 'update',
      planned: null,
      dryRun: { allowed: false, reason: 'Invalid' },
    });
    // Within the policy, the same object is allowed.
    const within = await plan({
      type: 'deploy',
      payload: { manifests: [deployment('limited', 'registry.example/web:1', 4)] },
    });
    expect(within.result.objects[0]?.dryRun).toEqual({ allowed: true });
    expect(await getJson(`/apis/apps/v1/namespaces/${NS}/deployments/limited`)).toHaveProperty(
      'metadata.resourceVersion',
      at(before, 'metadata', 'resourceVersion'),
    );
  });

  it('an identity without delete on Secrets sees the missing permission, and its dry run refused', async () => {
    ok(
      await run('deploy', {
        manifests: [
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'kept', namespace: NS },
            stringData: { k: 'v' },
          },
        ],
      }),
    );
    const ref = { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'kept' };
    const { result } = await plan({ type: 'delete', payload: ref }, 'noSecretDelete');
    const object = objectAt(result, 0);
    expect(object.access).toEqual([
      expect.objectContaining({
        verb: 'delete',
        group: '',
        resource: 'secrets',
        namespace: NS,
        allowed: false,
      }),
    ]);
    expect(object).toMatchObject({ action: 'delete', dryRun: { allowed: false, reason: 'Forbidden' } });
    // What it may do, it is told it may.
    const update = await plan(
      {
        type: 'deploy',
        payload: {
          manifests: [{ ...ref, metadata: { name: 'kept', namespace: NS }, stringData: { k: 'w' } }],
        },
      },
      'noSecretDelete',
    );
    expect(update.result.objects[0]?.access).toEqual([
      expect.objectContaining({ verb: 'patch', resource: 'secrets', allowed: true }),
    ]);
  });

  it('shows Secret values as digests keyed per answer, never the values', async () => {
    const secret = (name: string, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: NS },
      stringData: data,
    });
    ok(
      await run('deploy', {
        manifests: [secret('digested', { user: 'admin-user-1', password: 'old-pass-4711' })],
      }),
    );
    const changed = [
      secret('digested', { user: 'admin-user-1', password: 'new-pass-0815' }),
      secret('twin', { copy: 'new-pass-0815' }),
    ];
    for (const account of ['test', 'ssa']) {
      const { result, raw } = await plan({ type: 'deploy', payload: { manifests: changed } }, account);
      for (const value of ['admin-user-1', 'old-pass-4711', 'new-pass-0815']) {
        expect(raw).not.toContain(value);
        expect(raw).not.toContain(Buffer.from(value).toString('base64'));
      }
      const [digested, twin] = [objectAt(result, 0), objectAt(result, 1)];
      expect(digested.action).toBe('update');
      expect(at(digested.live, 'data', 'user')).toMatch(/^hmac:[\w-]{43}$/);
      expect(at(digested.planned, 'data', 'user')).toBe(at(digested.live, 'data', 'user'));
      expect(at(digested.planned, 'data', 'password')).not.toBe(at(digested.live, 'data', 'password'));
      expect(at(twin.planned, 'data', 'copy')).toBe(at(digested.planned, 'data', 'password'));
    }
    const again = await plan({ type: 'deploy', payload: { manifests: changed } });
    const first = await plan({ type: 'deploy', payload: { manifests: changed } });
    // A new key for every answer: the same value does not digest the same across plans.
    expect(at(again.result.objects[0]?.live, 'data', 'user')).not.toBe(
      at(first.result.objects[0]?.live, 'data', 'user'),
    );
  });
});

describe('expect', () => {
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'guarded' };
  const path = `/apis/apps/v1/namespaces/${NS}/deployments/guarded`;

  it('refuses a deploy whose object moved since the plan, naming it, and writes nothing', async () => {
    ok(await run('deploy', { manifests: [deployment('guarded', 'registry.example/web:1')] }));
    const planned = String(at(await settled('guarded'), 'metadata', 'resourceVersion'));
    const edited = await admin.request('PATCH', path, {
      body: { metadata: { labels: { edited: 'by-hand' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(edited.status, edited.text).toBe(200);
    const now = String(at(edited.json, 'metadata', 'resourceVersion'));
    const refused = await run('deploy', {
      manifests: [deployment('guarded', 'registry.example/web:2'), configMap('guarded-new', { a: '1' })],
      expect: [
        { ...ref, resourceVersion: planned },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'guarded-new', resourceVersion: null },
      ],
    });
    expect(refused.ok).toBe(false);
    expect(refused.error?.code).toBe('PRECONDITION_FAILED');
    expect(refused.error?.message).toContain(
      `Deployment ${NS}/guarded: resourceVersion ${planned} when planned, ${now} now`,
    );
    expect(await getJson(path)).toHaveProperty('metadata.resourceVersion', now);
    expect(await getJson(`/api/v1/namespaces/${NS}/configmaps/guarded-new`)).toBeUndefined();

    // As the plan saw them now: applied.
    ok(
      await run('deploy', {
        manifests: [deployment('guarded', 'registry.example/web:2'), configMap('guarded-new', { a: '1' })],
        expect: [
          { ...ref, resourceVersion: now },
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'guarded-new', resourceVersion: null },
        ],
      }),
    );
    expect(await getJson(path)).toHaveProperty(
      'spec.template.spec.containers.0.image',
      'registry.example/web:2',
    );

    // An object the plan saw absent that exists now.
    const exists = await run('deploy', {
      manifests: [configMap('guarded-new', { a: '2' })],
      expect: [
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'guarded-new', resourceVersion: null },
      ],
    });
    expect(exists.error?.message).toContain(`ConfigMap ${NS}/guarded-new: absent when planned, exists now`);
  });

  it('a server-side apply carries the planned version, so a move after the check is refused too', async () => {
    ok(await run('deploy', { manifests: [deployment('guarded-ssa', 'registry.example/web:1')] }, 'ssa'));
    const ssaPath = `/apis/apps/v1/namespaces/${NS}/deployments/guarded-ssa`;
    const planned = String(at(await settled('guarded-ssa'), 'metadata', 'resourceVersion'));
    await admin.request('PATCH', ssaPath, {
      body: { metadata: { labels: { edited: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    const now = String(at(await getJson(ssaPath), 'metadata', 'resourceVersion'));
    // The handler alone, without the check before it: the API server itself refuses the stale apply.
    const writing = HANDLERS.deploy.run(
      {
        manifests: [deployment('guarded-ssa', 'registry.example/web:2')],
        force: false,
        expect: [{ ...ref, name: 'guarded-ssa', resourceVersion: planned }],
      },
      {
        cluster: ssaCluster,
        signal: AbortSignal.timeout(30_000),
        now: () => new Date(),
        secret: async () => '',
      },
    );
    await expect(writing).rejects.toThrow(/changed since the plan/);
    expect(await getJson(ssaPath)).toHaveProperty('metadata.resourceVersion', now);
  });
});

describe('plan of scale, patch, rollout and runJob', () => {
  it('dry-runs each write: the planned object shows the change, the cluster keeps none of it', async () => {
    ok(
      await run('deploy', {
        manifests: [
          deployment('other-types', 'registry.example/web:1'),
          configMap('other-types', { a: '1' }),
        ],
      }),
    );
    const live = await settled('other-types');
    const before = await versionsIn(NS);
    const workload = { kind: 'Deployment', namespace: NS, name: 'other-types' };

    const scaled = await plan({ type: 'scale', payload: { ...workload, replicas: 4 } });
    expect(scaled.result.objects[0]).toMatchObject({ action: 'update', dryRun: { allowed: true } });
    expect(at(scaled.result.objects[0]?.planned, 'spec', 'replicas')).toBe(4);
    expect(scaled.result.objects[0]?.access).toEqual([
      expect.objectContaining({
        verb: 'patch',
        group: 'apps',
        resource: 'deployments',
        subresource: 'scale',
        allowed: true,
      }),
    ]);

    const restarted = await plan({ type: 'rollout', payload: { ...workload, action: 'restart' } });
    expect(restarted.result.objects[0]?.action).toBe('update');
    expect(
      at(
        restarted.result.objects[0]?.planned,
        'spec',
        'template',
        'metadata',
        'annotations',
        'kubectl.kubernetes.io/restartedAt',
      ),
    ).toEqual(expect.any(String));
    const paused = await plan({ type: 'rollout', payload: { ...workload, action: 'pause' } });
    expect(at(paused.result.objects[0]?.planned, 'spec', 'paused')).toBe(true);
    // One revision only: an undo has nothing to go back to, as the real one would say.
    const undone = await plan({ type: 'rollout', payload: { ...workload, action: 'undo' } });
    expect(undone.result.objects[0]?.dryRun).toMatchObject({ allowed: false, reason: 'NotFound' });

    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'other-types' };
    const patched = await plan({
      type: 'patch',
      payload: { ...ref, patchType: 'merge', patch: { data: { b: '2' } } },
    });
    expect(patched.result.objects[0]).toMatchObject({
      action: 'update',
      planned: { data: { a: '1', b: '2' } },
    });
    const gone = { ...ref, name: 'never-was', patchType: 'merge', patch: { data: { b: '2' } } };
    expect((await plan({ type: 'patch', payload: gone })).result.objects[0]).toMatchObject({
      action: 'none',
      dryRun: { allowed: false, reason: 'NotFound' },
    });
    expect(
      (await plan({ type: 'patch', payload: { ...gone, ignoreNotFound: true } })).result.objects[0],
    ).toMatchObject({
      action: 'none',
      dryRun: { allowed: true },
    });

    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { generateName: 'planned-job-', namespace: NS },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example/job:1' }] },
        },
      },
    };
    const jobPlan = await plan({ type: 'runJob', payload: { manifest: job } });
    const planned = objectAt(jobPlan.result, 0);
    expect(planned).toMatchObject({
      kind: 'Job',
      namespace: NS,
      action: 'create',
      live: null,
      dryRun: { allowed: true },
    });
    expect(planned.name).toMatch(/^planned-job-/);
    expect(planned.unknown.join(' ')).toContain("the Job's outcome");
    expect(at(await getJson(`/apis/batch/v1/namespaces/${NS}/jobs`), 'items')).toEqual([]);

    expect(await versionsIn(NS)).toEqual(before);
    expect(await getJson(`/apis/apps/v1/namespaces/${NS}/deployments/other-types`)).toHaveProperty(
      'metadata.resourceVersion',
      at(live, 'metadata', 'resourceVersion'),
    );
  });

  it("plans an undo as the previous revision's pod template, sent as a dry run", async () => {
    ok(await run('deploy', { manifests: [deployment('undo-plan', 'registry.example/web:1')] }));
    await settled('undo-plan');
    ok(await run('deploy', { manifests: [deployment('undo-plan', 'registry.example/web:2')] }));
    const live = await settled('undo-plan');
    expect(at(live, 'metadata', 'annotations', 'deployment.kubernetes.io/revision')).toBe('2');
    const { result } = await plan({
      type: 'rollout',
      payload: { action: 'undo', kind: 'Deployment', namespace: NS, name: 'undo-plan' },
    });
    const object = objectAt(result, 0);
    expect(object).toMatchObject({ action: 'update', dryRun: { allowed: true } });
    const image = ['spec', 'template', 'spec', 'containers', 0, 'image'];
    expect(at(object.live, ...image)).toBe('registry.example/web:2');
    expect(at(object.planned, ...image)).toBe('registry.example/web:1');
    expect(await getJson(`/apis/apps/v1/namespaces/${NS}/deployments/undo-plan`)).toHaveProperty(
      'metadata.resourceVersion',
      at(live, 'metadata', 'resourceVersion'),
    );
  });

  it('a custom resource whose CRD the same deploy creates is planned from the CRD, not dry-run', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'plannedwidgets.plan.example.com' },
      spec: {
        group: 'plan.example.com',
        scope: 'Namespaced',
        names: { kind: 'PlannedWidget', plural: 'plannedwidgets', singular: 'plannedwidget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    const widget = {
      apiVersion: 'plan.example.com/v1',
      kind: 'PlannedWidget',
      metadata: { name: 'w', namespace: NS },
      spec: { size: 1 },
    };
    const { result } = await plan({ type: 'deploy', payload: { manifests: [widget, crd] } });
    expect(result.objects.map((o) => [o.kind, o.action, o.dryRun.allowed, o.dryRun.reason])).toEqual([
      ['CustomResourceDefinition', 'create', true, undefined],
      ['PlannedWidget', 'create', true, 'NotDryRun'],
    ]);
    expect(result.objects[1]?.access.map((a) => [a.verb, a.group, a.resource, a.namespace])).toEqual([
      ['create', 'plan.example.com', 'plannedwidgets', NS],
      ['patch', 'plan.example.com', 'plannedwidgets', NS],
    ]);
    expect(
      await getJson(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/plannedwidgets.plan.example.com',
      ),
    ).toBeUndefined();
  });
});
