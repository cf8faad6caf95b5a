// The shared test cluster behaves as a real Kubernetes cluster where the agent depends on it:
// workloads run, server-side apply merges by field owner, watches stream every change, and a
// service-account token carries exactly the RBAC it was granted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type ApiClient,
  createServiceAccountToken,
  sharedCluster,
  sharedClusterClient,
  type WatchEvent,
} from './index.ts';

const ListMeta = z.object({ metadata: z.object({ resourceVersion: z.string() }) });
const List = z.object({ items: z.array(z.unknown()) });

let api: ApiClient;
const namespace = `smoke-${randomBytes(4).toString('hex')}`;

async function must(response: Promise<{ status: number; text: string; json: unknown }>, status: number) {
  const r = await response;
  expect(r.status, r.text).toBe(status);
  return r.json;
}

beforeAll(async () => {
  api = sharedClusterClient();
  await must(api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: namespace } } }), 201);
});

afterAll(async () => {
  await api.request('DELETE', `/api/v1/namespaces/${namespace}`);
  await api.close();
});

describe('the shared cluster', () => {
  it('is described to test files: kubeconfig, server, CA and an admin token that works', async () => {
    const cluster = sharedCluster();
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.ca).toContain('-----BEGIN CERTIFICATE-----');
    const version = z.object({ gitVersion: z.string() }).parse(await must(api.get('/version'), 200));
    expect(version.gitVersion).toBe('v1.36.3');
    const anonymous = api.withToken(undefined);
    const stranger = api.withToken('not-a-token-of-this-cluster');
    try {
      expect((await anonymous.get(`/api/v1/namespaces/${namespace}/configmaps`)).status).toBe(403);
      expect((await stranger.get(`/api/v1/namespaces/${namespace}/configmaps`)).status).toBe(401);
    } finally {
      await Promise.all([anonymous.close(), stranger.close()]);
    }
  });

  it('runs a Deployment: its ReplicaSet creates Pods that kwok nodes bring to Running', async () => {
    const labels = { app: 'web' };
    await must(
      api.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, {
        body: {
          metadata: { name: 'web' },
          spec: {
            replicas: 3,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
          },
        },
      }),
      201,
    );
    const ReplicaSets = z.object({
      items: z.array(
        z.object({
          metadata: z.object({ ownerReferences: z.array(z.object({ kind: z.string(), name: z.string() })) }),
          status: z.object({ readyReplicas: z.number().optional() }),
        }),
      ),
    });
    const Pods = z.object({
      items: z.array(
        z.object({
          spec: z.object({ nodeName: z.string().optional() }),
          status: z.object({ phase: z.string() }),
        }),
      ),
    });
    await vi.waitFor(
      async () => {
        const sets = ReplicaSets.parse(
          await must(
            api.get(`/apis/apps/v1/namespaces/${namespace}/replicasets?labelSelector=app%3Dweb`),
            200,
          ),
        );
        expect(sets.items).toHaveLength(1);
        expect(sets.items[0]?.metadata.ownerReferences[0]).toMatchObject({ kind: 'Deployment', name: 'web' });
        const pods = Pods.parse(
          await must(api.get(`/api/v1/namespaces/${namespace}/pods?labelSelector=app%3Dweb`), 200),
        );
        expect(pods.items.map((p) => p.status.phase)).toEqual(['Running', 'Running', 'Running']);
        expect(pods.items.every((p) => p.spec.nodeName?.startsWith('kwok-node-'))).toBe(true);
      },
      { timeout: 30_000, interval: 250 },
    );
  });

  it('applies server-side: fields are owned by their manager, and a conflicting apply is refused', async () => {
    const path = `/api/v1/namespaces/${namespace}/configmaps/applied?fieldManager=orch-agent`;
    const manifest = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  owned: "${value}"\n`;
    await must(
      api.request('PATCH', path, { body: manifest('1'), contentType: 'application/apply-patch+yaml' }),
      201,
    );
    await must(
      api.request('PATCH', path, { body: manifest('2'), contentType: 'application/apply-patch+yaml' }),
      200,
    );

    const Applied = z.object({
      data: z.record(z.string(), z.string()),
      metadata: z.object({
        managedFields: z.array(z.object({ manager: z.string(), operation: z.string() })),
      }),
    });
    const applied = Applied.parse(
      await must(api.get(`/api/v1/namespaces/${namespace}/configmaps/applied`), 200),
    );
    expect(applied.data).toEqual({ owned: '2' });
    expect(applied.metadata.managedFields).toContainEqual({ manager: 'orch-agent', operation: 'Apply' });

    const other = `/api/v1/namespaces/${namespace}/configmaps/applied?fieldManager=someone-else`;
    const conflict = await api.request('PATCH', other, {
      body: manifest('3'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(conflict.status).toBe(409);
    expect(conflict.text).toContain('conflict');
  });

  it('streams ADDED, MODIFIED and DELETED to a watch from a resourceVersion', async () => {
    const configmaps = `/api/v1/namespaces/${namespace}/configmaps`;
    const list = ListMeta.parse(await must(api.get(configmaps), 200)).metadata;
    const controller = new AbortController();
    const events: WatchEvent[] = [];
    const watching = (async () => {
      const stream = api.watch(
        `${configmaps}?watch=1&resourceVersion=${list.resourceVersion}&fieldSelector=metadata.name%3Dwatched`,
        controller.signal,
      );
      for await (const event of stream) {
        events.push(event);
        if (event.type === 'DELETED') controller.abort();
      }
    })();
    await must(
      api.request('POST', configmaps, { body: { metadata: { name: 'watched' }, data: { v: '1' } } }),
      201,
    );
    await must(
      api.request('PATCH', `${configmaps}/watched`, {
        body: { data: { v: '2' } },
        contentType: 'application/merge-patch+json',
      }),
      200,
    );
    await must(api.request('DELETE', `${configmaps}/watched`), 200);
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']), {
      timeout: 10_000,
    });
    await watching;
  });

  it('lets a TokenRequest token do what its Role grants and nothing more', async () => {
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
    await must(
      api.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
        body: { metadata: { name: 'reader' } },
      }),
      201,
    );
    await must(
      api.request('POST', `${rbac}/roles`, {
        body: {
          metadata: { name: 'read-configmaps' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
        },
      }),
      201,
    );
    await must(
      api.request('POST', `${rbac}/rolebindings`, {
        body: {
          metadata: { name: 'reader-reads-configmaps' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
          subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
        },
      }),
      201,
    );
    const token = await createServiceAccountToken(api, namespace, 'reader', { expirationSeconds: 600 });
    const reader = api.withToken(token);
    try {
      const review = z.object({ status: z.object({ userInfo: z.object({ username: z.string() }) }) }).parse(
        await must(
          reader.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
            body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
          }),
          201,
        ),
      );
      expect(review.status.userInfo.username).toBe(`system:serviceaccount:${namespace}:reader`);
      List.parse(await must(reader.get(`/api/v1/namespaces/${namespace}/configmaps`), 200));
      expect((await reader.get(`/api/v1/namespaces/${namespace}/secrets`)).status).toBe(403);
      expect((await reader.get('/api/v1/namespaces/default/configmaps')).status).toBe(403);
      expect(
        (
          await reader.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
            body: { metadata: { name: 'x' } },
          })
        ).status,
      ).toBe(403);
    } finally {
      await reader.close();
    }
  });
});
