// Node builds the ES-module face of a built-in module by reading every one of its exports, getters
// included, and require() does not: `import http from 'node:http'` reads http.WebSocket, which
// loads Node's own bundled undici (~750 KiB of source, ~8 MiB resident) though the agent never opens
// a WebSocket; `node:tls` builds its rootCertificates list, `node:crypto` its webcrypto. So in the
// agent's process an ES import of these built-ins gets a face built like require()'s: the same module
// object as default export, and every export that is not a getter under its own name. Importing one of
// those getters (none of the agent's modules does) fails at start, naming it. Registered by
// bin/orch-agent.js first; code that imports them without it (tests, tools, cloudctl) works the same.
import { registerHooks } from 'node:module';

const FACE = 'orch-agent-builtin:';
const FACED: ReadonlySet<string> = new Set(['http', 'https', 'tls', 'crypto']);

/** The face's source: the module, and each plain export under its own name (any string is a name). */
function builtinFace(name: string): string {
  const module = process.getBuiltinModule(`node:${name}`) as Record<string, unknown>;
  const plain = Object.entries(Object.getOwnPropertyDescriptors(module))
    .filter(([key, descriptor]) => !('get' in descriptor) && key !== 'default')
    .map(([key]) => key);
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(`node:${name}`)});`,
    'export default m;',
    ...plain.map(
      (key, i) => `const v${i} = m[${JSON.stringify(key)}]; export { v${i} as ${JSON.stringify(key)} };`,
    ),
  ].join('\n');
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const name = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
    // require() gets the built-in itself, as it always does.
    if (FACED.has(name) && !context.conditions.includes('require'))
      return { url: `${FACE}${name}`, shortCircuit: true };
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.startsWith(FACE)) return nextLoad(url, context);
    return { format: 'module', source: builtinFace(url.slice(FACE.length)), shortCircuit: true };
  },
});
