// orchestrator.accounts[].noProxy and orchestrator.noProxy (spec: "ignore proxy environment variables
// for this cluster" / "for any cluster"): a whole agent runs with HTTPS_PROXY naming a real CONNECT
// proxy (the `proxy` package) in front of the shared cluster. Without noProxy the account's requests
// tunnel through it; with noProxy they go straight to the API server, and the account still streams.
// The control-plane connection has cloudctl.noProxy: true throughout, so every tunnel the proxy sees
// is the cluster's.
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { createProxy, type ProxyServer } from 'proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessAgent } from '../agent/in-process-agent.ts';
import { createNamespace, deleteObject, msUntil, msUntilStored } from '../agent/watch/watch-fixture.ts';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../cloudctl/harness.ts';
import { freePort } from '../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';

const NS = 'no-proxy';
let cp: TestControlPlane;
let admin: ApiClient;
let proxy: ProxyServer;
let proxyUrl: string;
const tunnels: string[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
  proxy = createProxy(createServer());
  proxy.on('connect', (request: { url?: string }, socket: Socket) => {
    tunnels.push(request.url ?? '');
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});

afterAll(async () => {
  // Tunnels are upgraded sockets the HTTP server no longer tracks: end them so close() returns.
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

/** The API server as a CONNECT target, host:port. */
const apiServer = () => new URL(sharedCluster().server).host;

/**
 * Runs an agent with HTTPS_PROXY set and one account on the shared cluster until the account is
 * ACTIVE and its ConfigMap stored; returns the CONNECT targets the proxy saw meanwhile.
 */
async function tunnelsOfAgent(
  account: string,
  accountExtra: Record<string, unknown>,
  orchestratorExtra: Record<string, unknown> = {},
): Promise<string[]> {
  tunnels.length = 0;
  const agent = await startInProcessAgent(
    {
      server: { host: '127.0.0.1', port: await freePort() },
      cloudctl: { grpc: cp.address, insecure: true, noProxy: true, auth: { token: AGENT_TOKEN } },
      orchestrator: {
        ...orchestratorExtra,
        accounts: [
          {
            name: account,
            orchConfigFile: sharedCluster().kubeconfigPath,
            namespaces: [NS],
            kinds: ['configMap'],
            ...accountExtra,
          },
        ],
      },
    },
    { env: { HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl } },
  );
  try {
    await msUntil(
      `${account} ACTIVE`,
      async () => (await cp.plane.store.agents.account(account))?.status === 'ACTIVE',
      20_000,
    );
    await msUntilStored(cp, account, 'ConfigMap', [`${NS}/seen`], 20_000);
    return [...tunnels];
  } finally {
    await agent.stop();
  }
}

describe('noProxy for clusters', () => {
  it('without noProxy the account reaches its API server through HTTPS_PROXY, and streams', async () => {
    const seen = await tunnelsOfAgent('proxied', {});
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([apiServer()]));
  });

  it('accounts[].noProxy: true goes straight to the API server (the proxy sees nothing), and streams', async () => {
    expect(await tunnelsOfAgent('direct', { noProxy: true })).toEqual([]);
  });

  it('orchestrator.noProxy: true does the same for every account', async () => {
    expect(await tunnelsOfAgent('direct-global', {}, { noProxy: true })).toEqual([]);
  });
});
