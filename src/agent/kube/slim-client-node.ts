// Loads only the parts of @kubernetes/client-node the agent uses: its kubeconfig handling and
// authentication (KubeConfig, kept as users rely on it), not the generated models and API classes
// its generated index drags in. Registered by bin/orch-agent.js before anything imports client-node;
// code that imports client-node without it (tests, tools) loads the whole package and works the same.
import { registerHooks } from 'node:module';

const CONFIG_MODULE = '/@kubernetes/client-node/dist/config.js';
const SLIM_GEN = new URL('./client-node-gen-slim.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === './gen/index.js' && context.parentURL?.endsWith(CONFIG_MODULE)) {
      return { url: SLIM_GEN, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
