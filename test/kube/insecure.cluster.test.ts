// orchestrator.accounts[].insecure (spec: "do not verify the TLS certificate of the orchestrator API
// server"): a kubeconfig for the shared cluster without its CA. With insecure: true the account
// connects and streams; without it the API server's certificate is refused, and the control plane
// records a cause that says it is the certificate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../agent/config/config-fixture.ts';
import {
  createNamespace,
  deleteObject,
  msUntilStored,
  type RunningAgent,
  settledAccount,
  startAgent,
} from '../agent/watch/watch-fixture.ts';
import { startTestControlPlane, type TestControlPlane } from '../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';

const NS = 'kube-insecure';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
  const { server, adminToken } = sharedCluster();
  const withoutCa = writeConfig(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'shared', cluster: { server } }],
      users: [{ name: 'admin', user: { token: adminToken } }],
      contexts: [{ name: 'shared', context: { cluster: 'shared', user: 'admin' } }],
      'current-context': 'shared',
    }),
    'kubeconfig',
  );
  const account = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    orchConfigFile: withoutCa,
    namespaces: [NS],
    kinds: ['configMap'],
    ...extra,
  });
  agent = await startAgent(cp, {
    orchestrator: { accounts: [account('unverified', { insecure: true }), account('verified')] },
  });
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

const settled = (name: string) => settledAccount(cp, name);

describe('accounts[].insecure', () => {
  it('insecure: true connects to an API server whose CA the kubeconfig lacks, and streams', async () => {
    const account = await settled('unverified');
    expect(account?.status, account?.statusMessage).toBe('ACTIVE');
    await msUntilStored(cp, 'unverified', 'ConfigMap', [`${NS}/seen`], 20_000);
  });

  it('without insecure the certificate is refused: FAILED with a cause that names the certificate', async () => {
    const account = await settled('verified');
    expect(account?.status).toBe('FAILED');
    expect(account?.statusMessage).toContain(`cannot reach ${sharedCluster().server}`);
    expect(account?.statusMessage).toMatch(/the API server's certificate was refused: .*certificate/);
    expect(account?.statusMessage).toContain('insecure: true');
  });
});
