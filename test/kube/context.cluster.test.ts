// orchestrator.accounts[].context (spec: "context of the cluster configuration file to use"): one
// kubeconfig whose current-context points at a dead server and whose other context points at the
// shared cluster. The account naming the good context connects and streams; the account without
// `context` takes the current one and fails naming the dead server; an unknown context name fails
// naming it and the contexts the file has. What the control plane records is what a user sees.
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
import { freePort } from '../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';

const NS = 'kube-context';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent;
let kubeconfigPath: string;
let deadServer: string;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
  const { server, caFile, adminToken } = sharedCluster();
  deadServer = `https://127.0.0.1:${await freePort()}`;
  kubeconfigPath = writeConfig(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'dead', cluster: { server: deadServer } },
        { name: 'shared', cluster: { server, 'certificate-authority': caFile } },
      ],
      users: [{ name: 'admin', user: { token: adminToken } }],
      contexts: [
        { name: 'dead', context: { cluster: 'dead', user: 'admin' } },
        { name: 'good', context: { cluster: 'shared', user: 'admin' } },
      ],
      'current-context': 'dead',
    }),
    'kubeconfig',
  );
  const account = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    orchConfigFile: kubeconfigPath,
    namespaces: [NS],
    kinds: ['configMap'],
    ...extra,
  });
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [
        account('by-context', { context: 'good' }),
        account('current-context'),
        account('unknown-context', { context: 'goood' }),
      ],
    },
  });
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

const settled = (name: string) => settledAccount(cp, name);

describe('accounts[].context', () => {
  it('the account naming the good context connects to it and streams, though the current context is dead', async () => {
    const account = await settled('by-context');
    expect(account?.status, account?.statusMessage).toBe('ACTIVE');
    expect(account?.statusMessage).toContain(sharedCluster().server);
    expect(account?.statusMessage).toContain('context good');
    await msUntilStored(cp, 'by-context', 'ConfigMap', [`${NS}/seen`], 20_000);
  });

  it('without context the current context is used: FAILED, naming the dead server', async () => {
    const account = await settled('current-context');
    expect(account?.status).toBe('FAILED');
    expect(account?.statusMessage).toMatch(new RegExp(`cannot reach ${deadServer}: ECONNREFUSED`));
  });

  it('an unknown context is FAILED naming it, the file and the contexts the file has', async () => {
    const account = await settled('unknown-context');
    expect(account?.status).toBe('FAILED');
    expect(account?.statusMessage).toBe(`context 'goood' is not in ${kubeconfigPath} (contexts: dead, good)`);
  });
});
