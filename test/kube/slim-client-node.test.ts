// The agent binary loads client-node's KubeConfig without the generated models and API classes
// (slim-client-node.ts); without the hook the same imports load them all. Both in a fresh Node
// process, as the binary starts, counting the modules each loads.
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function generatedModulesLoaded(slim: boolean): number {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    ${slim ? `await import(${JSON.stringify(join(ROOT, 'src/kube/slim-client-node.ts'))});` : ''}
    const { KubeConfig } = await import(${JSON.stringify(join(ROOT, 'src/kube/kube-config.ts'))}).then(
      () => import('@kubernetes/client-node/dist/config.js'),
    );
    await import(${JSON.stringify(join(ROOT, 'src/kube/kube-http.ts'))});
    const config = new KubeConfig();
    config.loadFromString('apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: "https://k:6443"}}]\\ncontexts: [{name: c, context: {cluster: c, user: u}}]\\ncurrent-context: c\\nusers: [{name: u, user: {token: t}}]');
    if (config.getCurrentCluster()?.server !== 'https://k:6443') throw new Error('kubeconfig not read');
    console.log(loaded.filter((url) => /client-node\\/dist\\/gen\\/(models|apis|types)\\//.test(url)).length);
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return Number(out.trim());
}

/** A script running `body` in a fresh Node process as the agent binary loads client-node (the hooks first). */
function slimScript(body: string): string {
  return `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    await import(${JSON.stringify(join(ROOT, 'src/kube/slim-client-node.ts'))});
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    const { RequestContext, HttpMethod } = await import('@kubernetes/client-node/dist/gen/http/http.js');
    const optional = () => loaded.filter((url) => /\\/node_modules\\/(openid-client|jose|oauth4webapi|socks|socks-proxy-agent)\\//.test(url)).length;
    ${body}
  `;
}

function withSlimClientNode(body: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', slimScript(body)], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
}

/** A kubeconfig of one cluster and one user, as a string for loadFromString. */
const kubeconfig = (cluster: object, user: object) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
    users: [{ name: 'u', user }],
  });

describe('slim client-node', () => {
  it('reads a kubeconfig without loading the generated models and API classes', () => {
    expect(generatedModulesLoaded(true)).toBe(0);
  });

  it('is what keeps them out: the same imports without it load hundreds', () => {
    expect(generatedModulesLoaded(false)).toBeGreaterThan(100);
  });

  it('loads the OIDC and SOCKS packages only when a kubeconfig uses them', () => {
    const out = withSlimClientNode(`
      const config = new KubeConfig();
      config.loadFromString(${JSON.stringify(kubeconfig({}, { token: 't' }))});
      const context = new RequestContext('https://127.0.0.1:6443/version', HttpMethod.GET);
      await config.applySecurityAuthentication(context);
      console.log(JSON.stringify({ auth: context.getHeaders().Authorization, optional: optional() }));
    `);
    expect(JSON.parse(out)).toEqual({ auth: 'Bearer t', optional: 0 });
  });

  it("authenticates an OIDC user with client-node's own authenticator, loaded on its first request", () => {
    // An unexpired id-token is sent as it is, without asking the issuer (client-node's oidc_auth.js).
    const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${base64url({ alg: 'none' })}.${base64url({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const user = {
      'auth-provider': {
        name: 'oidc',
        config: { 'id-token': idToken, 'client-id': 'agent', 'idp-issuer-url': 'https://issuer.invalid' },
      },
    };
    const out = withSlimClientNode(`
      const config = new KubeConfig();
      config.loadFromString(${JSON.stringify(kubeconfig({}, user))});
      const before = optional();
      const context = new RequestContext('https://127.0.0.1:6443/version', HttpMethod.GET);
      await config.applySecurityAuthentication(context);
      console.log(JSON.stringify({ before, auth: context.getHeaders().Authorization, after: optional() > 0 }));
    `);
    expect(JSON.parse(out)).toEqual({ before: 0, auth: `Bearer ${idToken}`, after: true });
  });

  it('connects through a SOCKS proxy-url with the socks package, loaded when first used', async () => {
    // A listener in the place of the proxy records what the client sends first: a SOCKS5 greeting
    // starts with the version byte 5.
    const server = createServer();
    const greeting = new Promise<number>((resolve) =>
      server.once('connection', (socket) =>
        socket.once('data', (data: Buffer) => {
          resolve(data[0] ?? -1);
          socket.destroy();
        }),
      ),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const { port } = address;
    try {
      // Asynchronously: the listener above runs in this process.
      const run = promisify(execFile);
      const script = slimScript(`
        const config = new KubeConfig();
        config.loadFromString(${JSON.stringify(kubeconfig({ 'proxy-url': `socks5://127.0.0.1:${port}` }, { token: 't' }))});
        const before = optional();
        const context = new RequestContext('https://127.0.0.1:6443/version', HttpMethod.GET);
        await config.applySecurityAuthentication(context);
        const { fetch } = await import('undici');
        await fetch('https://127.0.0.1:6443/version', { dispatcher: context.getDispatcher() }).catch(() => {});
        console.log(JSON.stringify({ before, after: optional() > 0 }));
      `);
      const [{ stdout }, first] = await Promise.all([
        run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
        greeting,
      ]);
      expect(first).toBe(5);
      expect(JSON.parse(stdout.trim())).toEqual({ before: 0, after: true });
    } finally {
      server.close();
    }
  });
});
