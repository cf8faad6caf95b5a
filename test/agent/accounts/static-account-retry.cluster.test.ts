// A static account whose cluster cannot be reached when the agent starts is checked again in the
// background (account-lifecycle.ts, activateStatic) until it is ACTIVE, and then streams; before,
// it stayed FAILED until the agent restarted (seen at 100 accounts, where some first checks timed out
// while the API server was busy). The account's server is a port on which nothing listens at first;
// later a TCP forwarder to the shared cluster's API server opens there.
import { createServer, type Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { writeConfig } from '../config/config-fixture.ts';
import {
  createNamespace,
  deleteObject,
  msUntil,
  msUntilStored,
  type RunningAgent,
  startAgent,
} from '../watch/watch-fixture.ts';

const NS = 'static-account-retry';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;
let forwarder: Server | undefined;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  forwarder?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

/** Forwards every connection on `port` to the API server's. */
function forward(port: number, to: URL): Promise<Server> {
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(to.port), to.hostname);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe('a static account unreachable at start', () => {
  it('is reported FAILED, checked again, and turns ACTIVE and streams once its API server answers', async () => {
    const { server, caFile, adminToken } = sharedCluster();
    const port = await freePort();
    const kubeconfig = writeConfig(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'late', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority': caFile } },
        ],
        users: [{ name: 'admin', user: { token: adminToken } }],
        contexts: [{ name: 'late', context: { cluster: 'late', user: 'admin' } }],
        'current-context': 'late',
      }),
      'kubeconfig',
    );
    agent = await startAgent(
      cp,
      {
        orchestrator: {
          accounts: [{ name: 'late', orchConfigFile: kubeconfig, namespaces: [NS], kinds: ['configMap'] }],
        },
      },
      'info',
      { accountRetryMs: 200 },
    );
    const running = agent;
    await msUntil(
      'late FAILED',
      async () => (await cp.plane.store.agents.account('late'))?.status === 'FAILED',
      10_000,
    );
    expect((await cp.plane.store.agents.account('late'))?.statusMessage).toContain('ECONNREFUSED');
    // Still retrying with nothing listening: a retry fails the same way and is said at INFO.
    await msUntil(
      'a retry announced',
      () => running.logs.filter((l) => l.msg === 'account failed; checking it again later').length >= 2,
      10_000,
    );

    forwarder = await forward(port, new URL(server));
    await msUntil(
      'late ACTIVE',
      async () => (await cp.plane.store.agents.account('late'))?.status === 'ACTIVE',
      20_000,
    );
    await msUntilStored(cp, 'late', 'ConfigMap', [`${NS}/seen`], 20_000);
  }, 60_000);
});
