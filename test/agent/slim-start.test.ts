// The agent binary's start-up hooks (bin/orch-agent.js): ES imports of http, https, tls and crypto get
// a face without the built-ins' getters (slim-builtins.ts), so Node's bundled undici is not loaded
// for http.WebSocket; `undici` resolves to its dispatchers only (slim-undici.ts), its fetch loaded on
// first use. Each in a fresh Node process, with and without the hooks, importing what the agent does.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const src = (file: string) => JSON.stringify(join(ROOT, 'src', file));
const HOOKS = [
  'agent/slim-builtins.ts',
  'kube/slim-client-node.ts',
  'kube/slim-undici.ts',
  'agent/config/slim-zod.ts',
];

/** Runs `body` after the agent's imports (and hooks, if `slim`), printing what it returns as JSON. */
function afterAgentImports(slim: boolean, body: string): unknown {
  const script = `
    ${slim ? HOOKS.map((file) => `await import(${src(file)});`).join('\n') : ''}
    await import(${src('agent/cli/run-cli.ts')});
    const bundledUndici = () => process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
    const requireCache = (await import('node:module')).createRequire(import.meta.url).cache;
    const npmUndici = (path) => Object.keys(requireCache).some((file) => file.includes('/node_modules/undici/' + path));
    console.log(JSON.stringify(await (async () => { ${body} })()));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? 'null');
}

describe("the agent's start-up hooks", () => {
  it("leave Node's bundled undici unloaded; without them the agent's imports load it", () => {
    expect(afterAgentImports(true, 'return bundledUndici();')).toBe(false);
    expect(afterAgentImports(false, 'return bundledUndici();')).toBe(true);
  });

  it('give ES imports of the built-ins the same functions, and their getters through the default export', () => {
    const seen = afterAgentImports(
      true,
      `const http = await import('node:http');
       const tls = await import('tls');
       const crypto = await import('node:crypto');
       return [
         http.createServer === http.default.createServer, http.STATUS_CODES[404], typeof http.request,
         tls.connect === tls.default.connect, tls.default.rootCertificates.length > 0,
         crypto.createHash('sha256').update('x').digest('hex').slice(0, 8), 'WebSocket' in http,
       ];`,
    );
    expect(seen).toEqual([true, 'Not Found', 'function', true, true, '2d711642', false]);
  });

  it('leave the packages loaded on demand working: the SOCKS agent (ES modules importing http, https, tls)', () => {
    const seen = afterAgentImports(
      true,
      `const { SocksProxyAgent } = (await import('node:module')).createRequire(import.meta.url)('socks-proxy-agent');
       const agent = new SocksProxyAgent('socks5://127.0.0.1:1080');
       return [typeof agent.connect, agent.proxy.host, bundledUndici()];`,
    );
    expect(seen).toEqual(['function', '127.0.0.1', false]);
  });

  it('load undici without fetch and the web APIs, and fetch on its first call', () => {
    const seen = afterAgentImports(
      true,
      `const before = npmUndici('lib/web/fetch/index.js');
       const { fetch, Agent } = await import('undici');
       const server = (await import('node:http')).default.createServer((_q, s) => s.end('hello'));
       await new Promise((r) => server.listen(0, '127.0.0.1', r));
       const text = await (await fetch('http://127.0.0.1:' + server.address().port + '/')).text();
       server.close();
       return [before, npmUndici('lib/web/fetch/index.js'), typeof Agent.prototype.request, text];`,
    );
    expect(seen).toEqual([false, true, 'function', 'hello']);
  });
});
