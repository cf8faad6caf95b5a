// Loads only the parts of @kubernetes/client-node the agent uses: its kubeconfig handling and
// authentication (KubeConfig, kept as users rely on it), not the generated models and API classes
// its generated index drags in; OIDC and SOCKS support load when a kubeconfig uses them. Registered by bin/orch-agent.js and bin/cloudctl.js before anything imports client-node;
// code that imports client-node without it (tests, tools) loads the whole package and works the same.
import { registerHooks } from 'node:module';

const CONFIG_MODULE = '/@kubernetes/client-node/dist/config.js';
const here = (file: string) => new URL(file, import.meta.url).href;
/** What config.js imports, and what it gets instead. */
const REPLACED: ReadonlyMap<string, string> = new Map([
  ['./gen/index.js', here('./client-node-gen-slim.ts')],
  // Loaded when a kubeconfig asks for them (OIDC users, SOCKS proxies), not at start.
  ['./oidc_auth.js', here('./client-node-oidc-lazy.ts')],
  ['socks-proxy-agent', here('./client-node-socks-lazy.ts')],
  ['socks', here('./client-node-socks-lazy.ts')],
]);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const replacement = REPLACED.get(specifier);
    if (replacement !== undefined && context.parentURL?.endsWith(CONFIG_MODULE)) {
      return { url: replacement, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
