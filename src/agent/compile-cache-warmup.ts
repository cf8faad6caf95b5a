// Run once when the image is built (Dockerfile), with the agent's Node flags, as the user the agent
// runs as: Node's compile cache (NODE_COMPILE_CACHE, keyed by Node version, V8 flags and user id)
// then holds every module the agent can load, compiled, and for our .ts sources their stripped
// JavaScript. The agent then starts without parsing and compiling them, and without loading Node's
// TypeScript stripper (a WebAssembly module of ~17 MiB resident). Importing is all it does: no
// module here starts anything at import, except cli.ts, the entry, which is left out.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LAZY_PACKAGES } from './agent-runtime.ts';

const AGENT_DIR = fileURLToPath(new URL('.', import.meta.url));
// The agent's cluster client lives beside it (both programs use it); some of its modules load only
// when a kubeconfig asks for them, so no import from the agent reaches them here.
const KUBE_DIR = fileURLToPath(new URL('../kube/', import.meta.url));
const ENTRY = join(AGENT_DIR, 'cli.ts');
const SELF = fileURLToPath(import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && path !== ENTRY && path !== SELF ? [path] : [];
  });
}

// As bin/orch-agent.js does: the hooks first, so built-ins, client-node, undici and zod load as the
// agent loads them.
await import('./slim-builtins.ts');
await import('../kube/slim-client-node.ts');
await import('../kube/slim-undici.ts');
await import('./config/slim-zod.ts');
for (const file of [...sources(AGENT_DIR), ...sources(KUBE_DIR)]) await import(pathToFileURL(file).href);
for (const name of LAZY_PACKAGES) await import(name);
(await import('../kube/undici-core.ts')).loadFetch();
