// The agent binary loads client-node's KubeConfig without the generated models and API classes
// (slim-client-node.ts); without the hook the same imports load them all. Both in a fresh Node
// process, as the binary starts, counting the modules each loads.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

function generatedModulesLoaded(slim: boolean): number {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    ${slim ? `await import(${JSON.stringify(join(ROOT, 'src/agent/kube/slim-client-node.ts'))});` : ''}
    const { KubeConfig } = await import(${JSON.stringify(join(ROOT, 'src/agent/kube/kube-config.ts'))}).then(
      () => import('@kubernetes/client-node/dist/config.js'),
    );
    await import(${JSON.stringify(join(ROOT, 'src/agent/kube/kube-http.ts'))});
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

describe('slim client-node', () => {
  it('reads a kubeconfig without loading the generated models and API classes', () => {
    expect(generatedModulesLoaded(true)).toBe(0);
  });

  it('is what keeps them out: the same imports without it load hundreds', () => {
    expect(generatedModulesLoaded(false)).toBeGreaterThan(100);
  });
});
