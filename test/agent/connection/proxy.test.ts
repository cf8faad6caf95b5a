// HTTP CONNECT proxies from the environment: HTTPS_PROXY / HTTP_PROXY carry the control-plane
// connection through a real proxy (the `proxy` package); NO_PROXY and cloudctl.noProxy bypass it.
import { createServer } from 'node:http';
import { createProxy, type ProxyServer } from 'proxy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, connectionFor, type TestConnection } from './support.ts';

let cp: TestControlPlane;
let proxy: ProxyServer;
let proxyUrl: string;
const tunnels: string[] = [];
const open: TestConnection[] = [];

beforeAll(async () => {
  cp = await startTestControlPlane();
  proxy = createProxy(createServer());
  proxy.on('connect', (request: { url?: string }) => void tunnels.push(request.url ?? ''));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
  tunnels.length = 0;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await cp?.close();
});

async function connectWith(env: Record<string, string>, noProxy = false): Promise<void> {
  const c = connectionFor(
    agentConfig('B', { cloudctl: { grpc: cp.address, noProxy, auth: { token: AGENT_TOKEN } } }),
    { env },
  );
  open.push(c);
  await c.connection.start();
  await c.waitFor('connected');
}

describe('proxy', () => {
  it.each(['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY'])(
    'tunnels through the proxy named by %s',
    async (name) => {
      await connectWith({ [name]: proxyUrl });
      expect(tunnels).toContain(cp.address);
    },
  );

  it('cloudctl.noProxy: true ignores the proxy variables', async () => {
    await connectWith({ HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl }, true);
    expect(tunnels).toEqual([]);
  });

  it('NO_PROXY listing the control plane host bypasses the proxy', async () => {
    await connectWith({ HTTPS_PROXY: proxyUrl, NO_PROXY: 'example.com,127.0.0.0/8' });
    expect(tunnels).toEqual([]);
  });
});
