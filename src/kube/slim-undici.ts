// Loads only the parts of undici the agent uses (undici-core.ts) wherever the agent's process imports
// `undici`: our modules and client-node's KubeConfig alike, so one copy of its dispatchers serves
// both. Registered by bin/orch-agent.js before anything imports undici; code that imports undici
// without it (tests, tools, cloudctl) loads the whole package and works the same.
import { registerHooks } from 'node:module';

const CORE = new URL('./undici-core.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    // undici-core.ts itself reaches the real package.
    if (specifier === 'undici' && context.parentURL !== CORE) return { url: CORE, shortCircuit: true };
    return nextResolve(specifier, context);
  },
});
