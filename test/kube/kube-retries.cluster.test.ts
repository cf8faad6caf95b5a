// orchestrator.retries on every request to the API server, with real faults: a TCP proxy in front of
// the shared cluster's API server resets connections, and a service account without rights gets real
// 403s. Operations go through the agent's executor, as cloudctl's would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountCluster } from '../../src/agent/accounts/index.ts';
import type { OperationResult } from '../../src/agent/operations/index.ts';
import { accountCluster, executorFor, tokenKubeconfig } from '../agent/operations/operation-fixture.ts';
import { createServiceAccountToken, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts';

const NS = 'kube-retries';
let proxy: TcpFaultProxy;
let adminToken: string;
let noRightsToken: string;
let seq = 0;

/** Answers from the API server to requests other than discovery (code 0: none came), for counting attempts. */
const answers: number[] = [];

/** An account reaching the cluster through the proxy, with the given `orchestrator.retries` lines. */
async function accountThroughProxy(retries: string, token = adminToken): Promise<AccountCluster> {
  const { caFile } = sharedCluster();
  return accountCluster(
    tokenKubeconfig(`https://${proxy.address}`, caFile, token),
    retries
      .split('\n')
      .map((line) => `  ${line}\n`)
      .join(''),
    (verb, code) => {
      if (verb !== 'discovery') answers.push(code);
    },
  );
}

/** What `work` got from the API server, attempt by attempt. */
async function attempts(work: () => Promise<unknown>): Promise<number[]> {
  answers.length = 0;
  await work();
  return [...answers];
}

async function run(cluster: AccountCluster, type: string, payload: unknown): Promise<OperationResult> {
  const { executor } = executorFor({ test: cluster });
  return executor.execute({ id: `retry-${++seq}`, type, account: 'test', payload });
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
  data: { n: String(seq) },
});

beforeAll(async () => {
  const server = new URL(sharedCluster().server);
  proxy = await startTcpFaultProxy({ host: server.hostname, port: Number(server.port) });
  adminToken = sharedCluster().adminToken;
  const client = sharedClusterClient();
  try {
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    });
    await client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'no-rights' } },
    });
    noRightsToken = await createServiceAccountToken(client, NS, 'no-rights');
  } finally {
    await client.close();
  }
});

afterAll(async () => {
  await proxy?.close();
});

describe('orchestrator.retries on every API server request', () => {
  it('retryAnyError: a deploy whose first two connections are reset succeeds on the third attempt', async () => {
    const cluster = await accountThroughProxy(
      'retries:\n  retryAnyError: true\n  maxRetries: 3\n  backOffMs: 10',
    );
    const before = proxy.connections;
    proxy.cut(2);
    const result = await run(cluster, 'deploy', { manifests: [configMap('after-resets')] });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(proxy.connections - before).toBeGreaterThanOrEqual(3);
  });

  it('with the default retryableErrors a reset connection is not retried: one attempt, and the cause', async () => {
    const cluster = await accountThroughProxy('retries:\n  backOffMs: 10');
    const before = proxy.connections;
    proxy.cut(1);
    const result = await run(cluster, 'get', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: NS,
      name: 'after-resets',
    });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/cannot reach https:\/\/127\.0\.0\.1:\d+/);
    expect(proxy.connections - before).toBe(1);
  });

  it('a retryableErrors item found in the cause text makes the same fault retried', async () => {
    const cluster = await accountThroughProxy(
      'retries:\n  backOffMs: 10\n  maxRetries: 2\n  retryableErrors: [cannot reach]',
    );
    proxy.cut(1);
    const result = await run(cluster, 'get', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: NS,
      name: 'after-resets',
    });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  });

  it('gives up after maxRetries attempts with the last cause', async () => {
    const cluster = await accountThroughProxy(
      'retries:\n  retryAnyError: true\n  maxRetries: 2\n  backOffMs: 10',
    );
    const getMap = () =>
      run(cluster, 'get', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'after-resets' });
    // Discovery is cached by the first call, so the cuts below meet the get itself.
    expect((await getMap()).ok).toBe(true);
    proxy.cut(5);
    let result: OperationResult | undefined;
    const answered = await attempts(async () => {
      result = await getMap();
    });
    proxy.cut(0);
    expect(result?.ok).toBe(false);
    expect(result?.error?.message).toMatch(/cannot reach/);
    expect(answered).toEqual([0, 0]);
  });

  it('retryAnyError retries a 403 (RBAC still propagating heals) but never a 404 or a 422', async () => {
    const anyError = 'retries:\n  retryAnyError: true\n  maxRetries: 3\n  backOffMs: 10';
    const noRights = await accountThroughProxy(anyError, noRightsToken);
    expect(
      await attempts(() =>
        run(noRights, 'get', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'after-resets' }),
      ),
    ).toEqual([403, 403, 403]);
    const admin = await accountThroughProxy(anyError);
    expect(
      await attempts(() =>
        run(admin, 'get', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'no-such-map' }),
      ),
    ).toEqual([404]);
    const invalid = { ...configMap('Invalid_Name'), metadata: { name: 'Invalid_Name', namespace: NS } };
    const answered = await attempts(() => run(admin, 'deploy', { manifests: [invalid] }));
    expect(answered.filter((code) => code === 422)).toEqual([422]);
  });

  it('without retryAnyError a 403 is answered once', async () => {
    const noRights = await accountThroughProxy('retries:\n  backOffMs: 10', noRightsToken);
    expect(
      await attempts(() =>
        run(noRights, 'get', { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'after-resets' }),
      ),
    ).toEqual([403]);
  });
});
